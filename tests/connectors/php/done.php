<?php
// Reports a pass finished with the PHP connector: php done.php FOYER_URL ROOM SITE_TOKEN JTI
// prints Foyer's answer as JSON (tests/connectors/conformance.test.js).
declare(strict_types=1);
require_once __DIR__ . '/../../../connectors/php/foyer-pass.php';

[, $foyer, $room, $token, $jti] = $argv;
echo json_encode(foyer_pass_done(['foyer_url' => $foyer, 'room' => $room, 'site_token' => $token], [$jti])), "\n";
