// The Node connector's shop for the conformance suite, in a process of its own (so that its
// memory is its own): node serve.js ISSUER ROOM JWKS_URL LOGIN_URL. An Express app with
// /shop protected by the connector; every other path is Express's 404.
import express from 'express';
import { PassChecker, expressMiddleware } from '../../../connectors/node/foyer-pass.js';

const [issuer, room, jwksUrl, loginUrl] = process.argv.slice(2);
const checker = await new PassChecker({ issuer, room, jwksUrl, loginUrl }).ready();
const app = express();
app.use('/shop', expressMiddleware(checker), (req, res) => res.json({ visitor: req.foyerPass.visitor }));
const server = app.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}`));
