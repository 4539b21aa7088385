/**
 * What each package ships, as `npm pack --dry-run` lists it for the built packages: everything it
 * needs, nothing else (no sources, tests, maps or stray build output). Run after `npm run build`
 * (jest's global setup builds).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { n8nNodes } from '../../contract/contract';

const root = join(__dirname, '..', '..');
const read = (dir: string) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));

function packed(dir: string): string[] {
	const output = execFileSync('npm', ['pack', '--dry-run', '--json'], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
	return (JSON.parse(output)[0].files as Array<{ path: string }>).map((file) => file.path).sort();
}

/** `main`, when a package declares one, is a file it ships. */
const mainOf = (pkg: { main?: string }) => (pkg.main ? [pkg.main.replace(/^\.\//, '')] : []);

test('n8n package: its nodes with their codex files and icons, the credential and the shared api', () => {
	const pkg = read(root);
	for (const entry of pkg.files as string[]) expect({ entry, exists: existsSync(join(root, entry)) }).toEqual({ entry, exists: true });
	const files = packed(root);
	const iconDirs = [...pkg.n8n.nodes, ...pkg.n8n.credentials].map((file: string) => file.slice(0, file.lastIndexOf('/')));
	const required = [
		'package.json',
		'dist/api/index.js',
		...mainOf(pkg),
		...pkg.n8n.nodes,
		...pkg.n8n.nodes.map((file: string) => file.replace(/\.js$/, '.json')),
		...pkg.n8n.credentials,
		...iconDirs.flatMap((dir: string) => [`${dir}/chat-messaging.svg`, `${dir}/chat-messaging.dark.svg`]),
	];
	expect(required.filter((file) => !files.includes(file))).toEqual([]);
	const allowed = /^(package\.json|README\.md|LICENSE|dist\/(api|nodes|credentials)\/[\w/.-]+\.(js|json|svg))$/;
	expect(files.filter((file) => !allowed.test(file))).toEqual([]);
	expect(files.filter((file) => file.endsWith('.json') && file.startsWith('dist/'))).toEqual(
		pkg.n8n.nodes.map((file: string) => file.replace(/\.js$/, '.json')).sort(),
	);
});

test('n8n codex files name their node and version, and link the README', () => {
	const pkg = read(root);
	// One codex file per node type; like n8n's own versioned nodes (Slack), it names the first version.
	const firstVersions = n8nNodes().filter((node, index, all) => all.findIndex((other) => other.name === node.name) === index);
	for (const { name, version, description } of firstVersions) {
		const file = (pkg.n8n.nodes as string[]).find((path) => path.endsWith(`/${name[0]!.toUpperCase()}${name.slice(1)}.node.js`));
		const codex = JSON.parse(readFileSync(join(root, file!.replace(/\.js$/, '.json')), 'utf8'));
		expect(codex).toEqual({
			node: `${pkg.name}.${description.name}`,
			nodeVersion: version.toFixed(1),
			codexVersion: '1.0',
			categories: ['Communication'],
			resources: { primaryDocumentation: [{ url: pkg.homepage }] },
		});
	}
});

test('Node-RED package: the runtime, the editor with its texts and help, the icon and the examples', () => {
	const dir = join(root, 'dist', 'node-red');
	const pkg = read(dir);
	const files = packed(dir);
	const required = [
		'package.json',
		'README.md',
		'LICENSE',
		...mainOf(pkg),
		...(Object.values(pkg['node-red'].nodes) as string[]),
		'nodes-red/index.html',
		'nodes-red/locales/en-US/index.json',
		'nodes-red/locales/en-US/index.html',
		'nodes-red/icons/chat-messaging.svg',
		'api/index.js',
	];
	expect(required.filter((file) => !files.includes(file))).toEqual([]);
	const allowed =
		/^(package\.json|README\.md|LICENSE|examples\/[\w-]+\.json|api\/[\w/]+\.js|nodes-red\/([\w-]+\.js|index\.html|icons\/[\w.-]+\.svg|locales\/en-US\/index\.(json|html)))$/;
	expect(files.filter((file) => !allowed.test(file))).toEqual([]);
});

test('sandbox package: its code, main and bin', () => {
	const dir = join(root, 'dist', 'sandbox');
	const pkg = read(dir);
	const files = packed(dir);
	const required = ['package.json', 'README.md', 'LICENSE', ...mainOf(pkg), ...(Object.values(pkg.bin) as string[])];
	expect(required.filter((file) => !files.includes(file))).toEqual([]);
	// Besides code: the OpenAPI document it serves at /openapi.json, and Swagger UI's files for /docs.
	expect(files.filter((file) => !/^(package\.json|README\.md|LICENSE|[\w/-]+\.js)$/.test(file)).sort()).toEqual([
		'docs/LICENSE',
		'docs/swagger-ui.css',
		'openapi.json',
	]);
	expect(files).toContain('docs/swagger-ui-bundle.js');
});
