import { INIT_SCRIPT } from './assets';

/**
 * The docs page: Swagger UI's own files, then a start-up script, all from this service. Paths
 * are relative (`docs/...` from `/docs`, `../openapi.json` from the script), so the page also
 * works behind a stage or a path prefix.
 */
export const DOCS_PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>recordgate API</title>
  <link rel="stylesheet" href="docs/swagger-ui.css">
  <link rel="icon" type="image/png" href="docs/favicon-32x32.png" sizes="32x32">
  <link rel="icon" type="image/png" href="docs/favicon-16x16.png" sizes="16x16">
</head>
<body style="margin:0;background:#fafafa">
  <div id="swagger-ui"></div>
  <script src="docs/swagger-ui-bundle.js" charset="utf-8"></script>
  <script src="docs/${INIT_SCRIPT}" charset="utf-8"></script>
</body>
</html>
`;

// Runs in the browser. validatorUrl null: Swagger UI would otherwise send the document to
// validator.swagger.io. persistAuthorization keeps the token across reloads, in this browser only.
export const DOCS_INIT_SCRIPT = `(function () {
  var spec = new URL('../openapi.json', document.currentScript.src).href;
  window.addEventListener('load', function () {
    window.ui = SwaggerUIBundle({
      url: spec,
      dom_id: '#swagger-ui',
      deepLinking: true,
      presets: [SwaggerUIBundle.presets.apis],
      layout: 'BaseLayout',
      validatorUrl: null,
      persistAuthorization: true,
      displayRequestDuration: true,
      docExpansion: 'list',
      defaultModelsExpandDepth: 0
    });
  });
})();
`;

/** No script may come from anywhere but this service; Swagger UI sets inline styles. */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');
