#!/usr/bin/env node
// Builds everything into dist/:
//   dist/{api,nodes,credentials,icons}  the n8n package (the root package.json ships these)
//   dist/node-red/                      @chat-messaging/node-red-chat-messaging, with its own package.json
//   dist/sandbox/                       @chat-messaging/sandbox, with its own package.json
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const rootPackage = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

rmSync(dist, { recursive: true, force: true });
execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json')], {
	stdio: 'inherit',
});

// The n8n parameters as literals, for the node-parameter lint rules (eslint.config.mjs).
execFileSync(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'n8n-descriptions.ts')], { stdio: 'inherit' });

// n8n reads each node's codex file (<Node>.node.json: categories, documentation links) next to it.
for (const node of ['ChatMessaging', 'ChatMessagingTrigger', 'ChatMessagingPollTrigger']) {
	cpSync(join(root, 'nodes', node, `${node}.node.json`), join(dist, 'nodes', node, `${node}.node.json`));
}

// n8n reads icons (light and dark) relative to the compiled node and credential files.
for (const dir of [
	join(dist, 'nodes', 'ChatMessaging'),
	join(dist, 'nodes', 'ChatMessagingTrigger'),
	join(dist, 'nodes', 'ChatMessagingPollTrigger'),
	join(dist, 'credentials'),
]) {
	for (const icon of ['chat-messaging.svg', 'chat-messaging.dark.svg']) {
		if (existsSync(dir)) cpSync(join(root, 'icons', icon), join(dir, icon));
	}
}

// The sandbox package: its compiled code is already in dist/sandbox.
const sandboxDir = join(dist, 'sandbox');
writeFileSync(
	join(sandboxDir, 'package.json'),
	JSON.stringify(
		{
			name: '@chat-messaging/sandbox',
			version: rootPackage.version,
			description: 'A local implementation of the Chat Messaging Service API, to build and test flows offline.',
			license: 'MIT',
			repository: rootPackage.repository,
			bugs: rootPackage.bugs,
			keywords: ['chat', 'messaging', 'sandbox', 'mock-server', 'n8n', 'node-red'],
			main: 'index.js',
			bin: { 'chat-messaging-sandbox': 'cli.js' },
			engines: { node: '>=20' },
			// The root pins zod exactly (n8n-workflow's peer); the published sandbox accepts compatible releases.
			dependencies: { zod: `^${rootPackage.devDependencies.zod.replace(/^[\^~]/, '')}` },
		},
		null,
		2,
	) + '\n',
);
if (existsSync(join(root, 'sandbox', 'README.md'))) cpSync(join(root, 'sandbox', 'README.md'), join(sandboxDir, 'README.md'));
cpSync(join(root, 'LICENSE'), join(sandboxDir, 'LICENSE'));
if (existsSync(join(sandboxDir, 'cli.js'))) chmodSync(join(sandboxDir, 'cli.js'), 0o755);

// The OpenAPI document, generated from the catalogue; the sandbox serves it at /openapi.json, and /docs
// draws it with Swagger UI's files shipped alongside (offline).
execFileSync(
	process.execPath,
	[join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(root, 'scripts', 'openapi.ts'), join(dist, 'openapi.json')],
	{
		stdio: 'inherit',
	},
);
cpSync(join(dist, 'openapi.json'), join(sandboxDir, 'openapi.json'));
mkdirSync(join(sandboxDir, 'docs'), { recursive: true });
for (const name of ['swagger-ui-bundle.js', 'swagger-ui.css', 'LICENSE']) {
	cpSync(join(root, 'node_modules', 'swagger-ui-dist', name), join(sandboxDir, 'docs', name));
}

// The client package: its code beside a copy of the compiled api/ (relative imports keep working), typings
// generated from the catalogue, its README.
const clientDir = join(dist, 'client');
mkdirSync(join(clientDir, 'client'), { recursive: true });
cpSync(join(clientDir, 'index.js'), join(clientDir, 'client', 'index.js'));
rmSync(join(clientDir, 'index.js'));
cpSync(join(dist, 'api'), join(clientDir, 'api'), { recursive: true });
execFileSync(
	process.execPath,
	[join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(root, 'scripts', 'client-types.ts'), join(clientDir, 'client', 'index.d.ts')],
	{
		stdio: 'inherit',
	},
);
writeFileSync(
	join(clientDir, 'package.json'),
	JSON.stringify(
		{
			name: '@chat-messaging/client',
			version: rootPackage.version,
			description: 'A typed client for the Chat Messaging Service API, from the same catalogue and executor as the n8n and Node-RED nodes.',
			license: 'MIT',
			repository: rootPackage.repository,
			bugs: rootPackage.bugs,
			keywords: ['chat', 'messaging', 'api-client'],
			main: 'client/index.js',
			types: 'client/index.d.ts',
			engines: { node: '>=20' },
		},
		null,
		2,
	) + '\n',
);
cpSync(join(root, 'client', 'README.md'), join(clientDir, 'README.md'));
cpSync(join(root, 'LICENSE'), join(clientDir, 'LICENSE'));

// The Node-RED package is assembled by its own step (editor HTML generated from the catalogue).
execFileSync(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'build-node-red.ts')], { stdio: 'inherit' });
mkdirSync(dist, { recursive: true });
console.log('built dist/ (n8n), dist/node-red, dist/sandbox');
