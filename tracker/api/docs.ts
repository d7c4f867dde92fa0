// /api-docs/openapi.json and a readable page at /api-docs (Swagger UI, served from the npm package),
// with the dashboard's page headers.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import express, { Router } from 'express';
import { getAbsoluteFSPath } from 'swagger-ui-dist';
import { pageHeaders } from '../http/page-headers.js';
import { openApiDocument } from './openapi.js';

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Fleet tracking API</title><link rel="icon" type="image/png" href="/api-docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="/api-docs/assets/swagger-ui.css"></head>
<body><div id="docs"></div><script src="/api-docs/assets/swagger-ui-bundle.js"></script>
<script src="/api-docs/init.js"></script></body></html>`;
const INIT = `window.ui = SwaggerUIBundle({ url: '/api-docs/openapi.json', dom_id: '#docs' });`;

export function docsRoutes(publicBaseUrl: string): Router {
  const router = Router();
  const document = JSON.stringify(openApiDocument({ publicBaseUrl }));
  const assets = getAbsoluteFSPath();
  // Read once so a missing package fails at start-up, not on the first visit.
  readFileSync(join(assets, 'swagger-ui-bundle.js'));
  // Swagger UI fetches the document and draws its icons from data: URLs; nothing else is loosened.
  router.use('/api-docs', pageHeaders({ 'connect-src': "'self'", 'img-src': "'self' data:" }));
  router.get('/api-docs/openapi.json', (_req, res) => void res.type('application/json').send(document));
  router.get('/api-docs', (_req, res) => void res.type('html').send(PAGE));
  router.get('/api-docs/init.js', (_req, res) => void res.type('application/javascript').send(INIT));
  router.use('/api-docs/assets', express.static(assets, { index: false, fallthrough: false }));
  return router;
}
