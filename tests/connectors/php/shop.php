<?php
// A shop page behind the PHP connector, for PHP's built-in server (php -S ... shop.php):
// /shop/ is protected, as a checkout that requires the connector at its top.
declare(strict_types=1);
require_once __DIR__ . '/../../../connectors/php/foyer-pass.php';

$pass = foyer_pass_protect([
    'issuer' => getenv('FOYER_ISSUER'),
    'room' => getenv('FOYER_ROOM'),
    'jwks_url' => getenv('FOYER_JWKS_URL'),
    'login_url' => getenv('FOYER_LOGIN_URL'),
    'cache_file' => getenv('FOYER_JWKS_CACHE') ?: null,
]);
header('Content-Type: application/json');
echo json_encode(['visitor' => $pass['visitor']]);
