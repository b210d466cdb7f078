<?php
// The PHP connector's verdicts on the shared vectors, as JSON (tests/connectors/conformance.test.js).
declare(strict_types=1);
require_once __DIR__ . '/../../../connectors/php/foyer-pass.php';

$v = json_decode(file_get_contents($argv[1]), true, 64, JSON_THROW_ON_ERROR);
$keys = array_map(fn ($set) => foyer_load_keys(json_encode($set)), $v['keys']);
$out = ['passes' => [], 'destinations' => [], 'refusals' => []];
foreach ($v['passes'] as $p) {
    $out['passes'][$p['name']] = foyer_verify_pass($p['token'], $keys[$p['keys']], $v['issuer'], $v['room'],
        $v['leeway_seconds'], $p['now']);
}
foreach ($v['destinations'] as $d) $out['destinations'][$d['target']] = foyer_entry_location($d['target']);
foreach ($v['refusals'] as $r) $out['refusals'][$r['name']] = foyer_refusal_location($v['login_url'], $r['error'], $r['target']);
echo json_encode($out, JSON_UNESCAPED_SLASHES | JSON_THROW_ON_ERROR), "\n";
