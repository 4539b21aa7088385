/**
 * What each package ships, as `npm pack` packed it at build (dist/packages.json lists the files):
 * everything it needs, nothing else (no sources, tests, maps or stray build output).
 * Run after `npm run build` (jest's global setup builds).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { descriptionsByVersion } from '../../contract/contract';
import { builtPackage, builtPackages, type PackageFolder } from '../support/packages';

const packageOf = (folder: PackageFolder) => {
	const built = builtPackage(folder);
	const pkg = JSON.parse(readFileSync(join(built.dir, 'package.json'), 'utf8'));
	return { built, pkg, files: [...(built.files ?? [])].sort() };
};

/** `main`, when a package declares one, is a file it ships. */
const mainOf = (pkg: { main?: string }) => (pkg.main ? [pkg.main.replace(/^\.\//, '')] : []);

test('every publishable package is packed, with its licence, README, changelog and package.json; the core and the OpenAPI package are private', () => {
	const packages = builtPackages();
	expect(packages.filter((p) => p.private).map((p) => p.name)).toEqual(['@chat-messaging/core', '@chat-messaging/openapi']);
	for (const pkg of packages.filter((p) => !p.private)) {
		expect({ name: pkg.name, tarball: existsSync(join(__dirname, '..', '..', pkg.tarball!)) }).toEqual({ name: pkg.name, tarball: true });
		expect({
			name: pkg.name,
			missing: ['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md'].filter((f) => !pkg.files!.includes(f)),
		}).toEqual({
			name: pkg.name,
			missing: [],
		});
	}
});

test('n8n package: its nodes with their codex files and icons, the credential and the core compiled in once', () => {
	const { pkg, files } = packageOf('n8n');
	const required = [
		'package.json',
		'dist/core.js',
		...pkg.n8n.nodes,
		...pkg.n8n.nodes.map((file: string) => file.replace(/\.js$/, '.json')),
		...pkg.n8n.credentials,
		// One copy of the icons, which every node and the credential name by a path up to it.
		'dist/icons/chat-messaging.svg',
		'dist/icons/chat-messaging.dark.svg',
	];
	expect(required.filter((file) => !files.includes(file))).toEqual([]);
	const allowed =
		/^(package\.json|README\.md|LICENSE|CHANGELOG\.md|dist\/core\.js|dist\/(nodes|credentials)\/[\w/.-]+\.(js|json)|dist\/icons\/[\w.-]+\.svg)$/;
	expect(files.filter((file) => !allowed.test(file))).toEqual([]);
	expect(files.filter((file) => file.endsWith('.json') && file.startsWith('dist/'))).toEqual(
		pkg.n8n.nodes.map((file: string) => file.replace(/\.js$/, '.json')).sort(),
	);
	expect(pkg.dependencies).toBeUndefined();
});

test('n8n codex files name their node and version, and link the README', () => {
	const { built, pkg } = packageOf('n8n');
	for (const file of pkg.n8n.nodes as string[]) {
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const exported = require(join(built.dir, file)) as Record<string, new () => Parameters<typeof descriptionsByVersion>[0]>;
		const node = new (Object.values(exported)[0]!)();
		// One codex file per node type; like n8n's own versioned nodes (Slack), it names the first version.
		const [version, description] = descriptionsByVersion(node)[0]!;
		const codex = JSON.parse(readFileSync(join(built.dir, file.replace(/\.js$/, '.json')), 'utf8'));
		// An AI memory sub-node is filed where n8n files its own memories (AI → Memory); every other node under Communication.
		const suppliesMemory = JSON.stringify((description as { outputs?: unknown }).outputs ?? []).includes('ai_memory');
		expect(codex).toEqual({
			node: `${pkg.name}.${description.name}`,
			nodeVersion: version.toFixed(1),
			codexVersion: '1.0',
			categories: suppliesMemory ? ['AI'] : ['Communication'],
			...(suppliesMemory ? { subcategories: { AI: ['Memory'] } } : {}),
			resources: { primaryDocumentation: [{ url: pkg.homepage }] },
		});
	}
});

test('Node-RED package: the runtime with the core compiled in, the editor with its texts and help, the icons and the examples', () => {
	const { pkg, files } = packageOf('node-red');
	const required = [
		'package.json',
		'README.md',
		'LICENSE',
		...mainOf(pkg),
		...(Object.values(pkg['node-red'].nodes) as string[]),
		'dist/index.html',
		'dist/locales/en-US/index.json',
		'dist/locales/en-US/index.html',
		'dist/icons/chat-messaging.svg',
		'dist/icons/chat-messaging-event.svg',
	];
	expect(required.filter((file) => !files.includes(file))).toEqual([]);
	const allowed =
		/^(package\.json|README\.md|LICENSE|CHANGELOG\.md|examples\/[\w-]+\.json|dist\/(index\.(js|html)|icons\/[\w.-]+\.svg|locales\/en-US\/index\.(json|html)))$/;
	expect(files.filter((file) => !allowed.test(file))).toEqual([]);
	expect(Object.keys(pkg.dependencies)).toEqual(['axios']);
});

test('sandbox package: its code, main and bin', () => {
	const { pkg, files } = packageOf('sandbox');
	const required = ['package.json', 'README.md', 'LICENSE', ...mainOf(pkg), ...(Object.values(pkg.bin) as string[])];
	expect(required.filter((file) => !files.includes(file))).toEqual([]);
	// Besides code and its typings: the OpenAPI document it serves at /openapi.json, and Swagger UI's files for /docs.
	expect(files.filter((file) => !/^(package\.json|README\.md|LICENSE|CHANGELOG\.md|dist\/[\w/-]+\.(js|d\.ts))$/.test(file)).sort()).toEqual(
		['dist/docs/LICENSE', 'dist/docs/swagger-ui.css', 'dist/openapi.json'],
	);
	expect(files).toContain('dist/docs/swagger-ui-bundle.js');
});

test('client package: the client with the core compiled in, and its typings', () => {
	const { pkg, files } = packageOf('client');
	expect(files).toEqual(['CHANGELOG.md', 'LICENSE', 'README.md', 'dist/index.d.ts', 'dist/index.js', 'package.json']);
	expect(pkg.dependencies).toBeUndefined();
});

test('chat adapter package: the adapter as one ES module with the core compiled in, its typings, and chat as a peer', () => {
	const { pkg, files } = packageOf('chat-adapter');
	expect(
		files.filter(
			(file) =>
				!/^(package\.json|README\.md|LICENSE|CHANGELOG\.md|dist\/index\.mjs|dist\/index\.d\.ts|dist\/types\/[\w/.-]+\.d\.ts)$/.test(file),
		),
	).toEqual([]);
	expect(files).toEqual(expect.arrayContaining(['dist/index.mjs', 'dist/index.d.ts', 'dist/types/chat-adapter/src/index.d.ts']));
	expect(pkg.dependencies).toBeUndefined();
	expect(Object.keys(pkg.peerDependencies)).toEqual(['chat']);
});

test('every publishable package says where it lives and what it runs on, as npm and the editors show it', () => {
	const repository = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')).repository.url as string;
	const web = repository.replace(/^git\+/, '').replace(/\.git$/, '');
	for (const built of builtPackages().filter((p) => !p.private)) {
		const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', built.folder, 'package.json'), 'utf8'));
		expect({ name: pkg.name, repository: pkg.repository, homepage: pkg.homepage, bugs: pkg.bugs }).toEqual({
			name: pkg.name,
			repository: { type: 'git', url: repository, directory: built.folder },
			homepage: `${web}/tree/main/${built.folder}#readme`,
			bugs: { url: `${web}/issues` },
		});
		expect({ name: pkg.name, node: pkg.engines?.node, license: pkg.license }).toEqual({
			name: pkg.name,
			node: expect.stringMatching(/^>=\d+(\.\d+)*$/),
			license: 'MIT',
		});
		// Published as the build packed it: only what `files` names (plus what npm always adds).
		expect({ name: pkg.name, files: pkg.files }).toEqual({ name: pkg.name, files: expect.arrayContaining(['dist', 'CHANGELOG.md']) });
	}
});
