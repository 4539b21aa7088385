#!/usr/bin/env node
// Builds this package into dist/: the compiled sandbox (tsc; it imports nothing of the other packages),
// the OpenAPI document it serves at /openapi.json (from @chat-messaging/openapi, generated from the
// catalogue) and the Swagger UI files that draw it at /docs, offline.
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(here, 'dist');
const require = createRequire(import.meta.url);

rmSync(dist, { recursive: true, force: true });
execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(here, 'tsconfig.build.json')], { stdio: 'inherit' });
chmodSync(join(dist, 'cli.js'), 0o755);
cpSync(require.resolve('@chat-messaging/openapi'), join(dist, 'openapi.json'));
mkdirSync(join(dist, 'docs'), { recursive: true });
const swaggerUi = dirname(require.resolve('swagger-ui-dist/package.json'));
for (const name of ['swagger-ui-bundle.js', 'swagger-ui.css', 'LICENSE']) cpSync(join(swaggerUi, name), join(dist, 'docs', name));
const pkg = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8'));
console.log(`built ${pkg.name}@${pkg.version}`);
