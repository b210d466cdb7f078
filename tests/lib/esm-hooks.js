// Module hooks (node:module register, from tests/lib/preload.js): the pages' scripts under
// web/ are ES modules, and web/ has no package.json to say so. Node 20.19 and later tell
// from their syntax; Node 18 loads a .js file without a "type" as CommonJS and the tests'
// imports of them fail. This hook says what they are.
const web = new URL('../../web/', import.meta.url).href;

export async function load(url, context, nextLoad) {
  if (url.startsWith(web) && url.endsWith('.js')) return nextLoad(url, { ...context, format: 'module' });
  return nextLoad(url, context);
}
