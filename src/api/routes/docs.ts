import { Router } from 'express';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { notFramed } from '../middleware/security-headers.ts';

const swaggerUiDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

// Everything the page needs is served from here: no CDN, so the docs work offline. The CSP makes sure of it, and
// keeps the page out of other sites' frames.
const page = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Content Creation Service API</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="docs"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/init.js"></script>
</body>
</html>`;

const init = `window.ui = SwaggerUIBundle({
  url: '/openapi.yaml',
  dom_id: '#docs',
  deepLinking: true,
  validatorUrl: null,
  persistAuthorization: false,
});`;

const contentSecurityPolicy =
  "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; worker-src 'self' blob:; frame-ancestors 'none'";

/** The contract (`/openapi.yaml`) and a human page for it (`/docs`, Swagger UI with "try it out"). */
export function docsRoutes(specPath: string): Router {
  const router = Router();
  const spec = readFileSync(specPath);

  router.get('/openapi.yaml', (_req, res) => {
    res.type('application/yaml').send(spec);
  });

  router.get('/docs', notFramed, (_req, res) => {
    res.set('Content-Security-Policy', contentSecurityPolicy).type('html').send(page);
  });

  router.get('/docs/assets/init.js', (_req, res) => {
    res.type('text/javascript').send(init);
  });

  for (const asset of ['swagger-ui.css', 'swagger-ui-bundle.js']) {
    router.get(`/docs/assets/${asset}`, (_req, res) => {
      res.set('Cache-Control', 'public, max-age=86400').sendFile(join(swaggerUiDir, asset));
    });
  }

  return router;
}
