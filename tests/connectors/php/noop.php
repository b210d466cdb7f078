<?php
// The benchmark's baseline for the PHP connector: the same page as shop.php, no check.
declare(strict_types=1);
header('Content-Type: application/json');
echo json_encode(['visitor' => null]);
