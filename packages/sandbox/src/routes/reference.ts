/**
 * The service's reference, served without a token: `/openapi.json` (the document `npm run build`
 * generates from the nodes' catalogue and ships in this package) and `/docs`, a readable page drawn
 * by Swagger UI from files shipped alongside (it works offline). The sandbox itself never reads the
 * document: it stays written from the spec alone, and the tests check the two against each other.
 */
import { existsSync, readFileSync } from 'fs';
import { join } from 'path';
import { ApiError } from '../errors';
import { publicRoute, RawReply, type Route } from '../router';

/** Where the built files are: beside the compiled sandbox, or in dist/ when running from the sources. */
function locate(name: string): string | undefined {
	return [join(__dirname, '..', name), join(__dirname, '..', '..', 'dist', name)].find((path) => existsSync(path));
}

function file(name: string, contentType: string): RawReply {
	const path = locate(name);
	if (!path) throw new ApiError(404, `${name} is not built: run npm run build`);
	return new RawReply(200, { 'content-type': contentType, 'cache-control': 'no-cache' }, readFileSync(path));
}

const DOCS_PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Chat Messaging Service API — sandbox reference</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<div id="reference"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#reference', deepLinking: true });</script>
</body>
</html>
`;

export const referenceRoutes: Route[] = [
	publicRoute('GET', '/openapi.json', () => file('openapi.json', 'application/json; charset=utf-8')),
	publicRoute('GET', '/docs', () => new RawReply(200, { 'content-type': 'text/html; charset=utf-8' }, DOCS_PAGE)),
	publicRoute('GET', '/docs/swagger-ui-bundle.js', () => file(join('docs', 'swagger-ui-bundle.js'), 'text/javascript; charset=utf-8')),
	publicRoute('GET', '/docs/swagger-ui.css', () => file(join('docs', 'swagger-ui.css'), 'text/css; charset=utf-8')),
];
