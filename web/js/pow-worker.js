// Module worker for the proof-of-work solver (started by pow.js, same origin).
// Each message is one puzzle to solve; replies are progress reports and the nonce.
import { workOnPuzzle } from './pow.js';

self.onmessage = ({ data }) => workOnPuzzle(data, (message) => self.postMessage(message));
