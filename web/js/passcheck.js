// Reads a Foyer pass (an EdDSA JWT) and checks its signature against the published
// JWKS with WebCrypto, for the demo target page. A site checks passes on its server
// (foyer guard, or any JWT library); this only shows a visitor what they hold.

function base64urlBytes(text) {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) throw new Error('malformed pass');
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((text.length + 3) % 4));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

const jsonPart = (text) => JSON.parse(new TextDecoder().decode(base64urlBytes(text)));

/** {header, claims} of a JWT, unchecked. Throws on anything that is not three base64url parts of JSON. */
export function readPass(token) {
  const parts = String(token).split('.');
  if (parts.length !== 3) throw new Error('malformed pass');
  try {
    return { header: jsonPart(parts[0]), claims: jsonPart(parts[1]) };
  } catch {
    throw new Error('malformed pass');
  }
}

/**
 * 'valid' when an Ed25519 key of `jwks` with the pass's kid signed it, 'invalid'
 * otherwise, 'not checked' when `subtle` is absent or lacks Ed25519.
 */
export async function checkPassSignature(token, jwks, subtle = globalThis.crypto?.subtle) {
  let header;
  try {
    header = readPass(token).header;
  } catch {
    return 'invalid';
  }
  const jwk = jwks.keys?.find((k) => k.kid === header.kid && k.kty === 'OKP' && k.crv === 'Ed25519');
  if (header.alg !== 'EdDSA' || !jwk) return 'invalid';
  if (!subtle) return 'not checked';
  let key;
  try {
    key = await subtle.importKey('jwk', { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, { name: 'Ed25519' }, false, ['verify']);
  } catch (error) {
    return error?.name === 'NotSupportedError' ? 'not checked' : 'invalid';
  }
  const [head, body, signature] = token.split('.');
  try {
    const ok = await subtle.verify({ name: 'Ed25519' }, key, base64urlBytes(signature), new TextEncoder().encode(`${head}.${body}`));
    return ok ? 'valid' : 'invalid';
  } catch {
    return 'invalid';
  }
}
