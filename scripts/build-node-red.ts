/**
 * Assembles dist/node-red/, the @chat-messaging/node-red-chat-messaging package, after scripts/build.mjs
 * compiled everything with tsc (run with tsx: it reads the catalogue from the sources):
 *   api/, nodes-red/          the compiled runtime (copied side by side so `../api` imports keep working)
 *   nodes-red/index.html      the editor, generated from the catalogue (scripts/node-red-editor.ts)
 *   nodes-red/locales/en-US/  its texts (index.json) and the nodes' help (index.html, scripts/node-red-help.ts)
 *   nodes-red/icons/          the palette icon
 *   examples/, README.md, LICENSE, package.json
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { OPERATIONS } from '../api';
import { editorHtml, editorMessages } from './node-red-editor';
import { editorHelp } from './node-red-help';

const root = join(__dirname, '..');
const dist = join(root, 'dist');
const out = join(dist, 'node-red');
const source = join(root, 'nodes-red');
const rootPackage = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

const PACKAGE_NAME = '@chat-messaging/node-red-chat-messaging';

for (const compiled of ['api', 'nodes-red']) {
	if (!existsSync(join(dist, compiled, 'index.js')))
		throw new Error(`dist/${compiled}/index.js is missing: run scripts/build.mjs (tsc) first`);
}

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
cpSync(join(dist, 'api'), join(out, 'api'), { recursive: true });
cpSync(join(dist, 'nodes-red'), join(out, 'nodes-red'), { recursive: true });
cpSync(join(source, 'icons'), join(out, 'nodes-red', 'icons'), { recursive: true });
cpSync(join(source, 'examples'), join(out, 'examples'), { recursive: true });
cpSync(join(source, 'README.md'), join(out, 'README.md'));
cpSync(join(root, 'LICENSE'), join(out, 'LICENSE'));

writeFileSync(join(out, 'nodes-red', 'index.html'), editorHtml());
// Node-RED reads a node file's texts and help from locales/<language>/<file name>.{json,html} beside it.
const locale = join(out, 'nodes-red', 'locales', 'en-US');
mkdirSync(locale, { recursive: true });
writeFileSync(join(locale, 'index.json'), `${JSON.stringify(editorMessages(), null, 2)}\n`);
writeFileSync(join(locale, 'index.html'), editorHelp());

// ---------------------------------------------------------------------------------------------
// package.json

const nodeRedPackage = {
	name: PACKAGE_NAME,
	version: rootPackage.version,
	description: 'Node-RED nodes for the Chat Messaging Service API: every operation, webhook events, and a shared service configuration.',
	keywords: ['node-red', 'chat', 'messaging', 'webhook', 'chat-messaging'],
	license: 'MIT',
	homepage: rootPackage.homepage,
	repository: rootPackage.repository,
	bugs: rootPackage.bugs,
	author: rootPackage.author,
	engines: { node: '>=20' },
	'node-red': {
		version: '>=4.0.0',
		nodes: { 'chat-messaging': 'nodes-red/index.js' },
	},
	dependencies: { axios: rootPackage.devDependencies.axios },
};
writeFileSync(join(out, 'package.json'), `${JSON.stringify(nodeRedPackage, null, 2)}\n`);

const examples = readdirSync(join(out, 'examples')).filter((name) => name.endsWith('.json'));
console.log(
	`built dist/node-red: ${PACKAGE_NAME}@${nodeRedPackage.version}, ${OPERATIONS.length} operations in the editor, ${examples.length} examples`,
);
