/**
 * The Node-RED flow library's scorecard (what `node-red-dev validate` checks), applied to the BUILT
 * package (packages/node-red as `npm run build` left it). `node-red-dev` itself cannot run here: its
 * P08 check downloads the flow library catalogue. D03 ("dependencies at their latest versions")
 * needs the registry, so offline this checks that the declared range admits the version installed.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { builtPackage } from '../../../test/support/packages';

const packageDir = builtPackage('node-red').dir;
const pkg = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));

/** Node types the packaged module registers, found by loading it with a recording RED. */
function registeredTypes(): string[] {
	const types: string[] = [];
	const fakeRED = {
		nodes: { registerType: (type: string) => types.push(type), createNode: () => undefined, getNode: () => null },
		util: {},
		settings: {},
		httpNode: { post: () => undefined },
	};
	for (const file of Object.values(pkg['node-red'].nodes) as string[]) {
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const register = require(join(packageDir, file));
		register(fakeRED);
	}
	return types;
}

/** Node-RED's core node types, read from the installed runtime. */
function coreTypes(): Set<string> {
	const types = new Set<string>();
	const walk = (dir: string) => {
		for (const entry of readdirSync(dir, { withFileTypes: true })) {
			const path = join(dir, entry.name);
			if (entry.isDirectory()) walk(path);
			else if (entry.name.endsWith('.js')) {
				for (const match of readFileSync(path, 'utf8').matchAll(/registerType\(\s*["']([^"']+)["']/g)) types.add(match[1]!);
			}
		}
	};
	walk(join(require.resolve('@node-red/nodes/package.json'), '..', 'core'));
	return types;
}

/** Whether a `^x.y.z`, `~x.y.z`, `>=x.y.z` or exact range admits `version` (enough for what this package declares). */
function rangeAdmits(range: string, version: string): boolean {
	const parse = (text: string) =>
		text
			.replace(/^[\^~>=v\s]+/, '')
			.split('.')
			.map(Number);
	const [rMajor, rMinor, rPatch] = parse(range);
	const [major, minor, patch] = parse(version);
	const atLeast = major! > rMajor! || (major === rMajor && (minor! > rMinor! || (minor === rMinor && patch! >= rPatch!)));
	if (range.startsWith('>=')) return atLeast;
	if (range.startsWith('^')) return atLeast && major === rMajor;
	if (range.startsWith('~')) return atLeast && major === rMajor && minor === rMinor;
	return range === version;
}

const examples = readdirSync(join(packageDir, 'examples'))
	.filter((name) => name.endsWith('.json'))
	.map((name) => ({ name, flow: JSON.parse(readFileSync(join(packageDir, 'examples', name), 'utf8')) as Array<Record<string, unknown>> }));

describe('Node-RED scorecard of the built package', () => {
	test('P01 licence: MIT, with a LICENSE file', () => {
		expect(pkg.license).toBe('MIT');
		expect(readFileSync(join(packageDir, 'LICENSE'), 'utf8')).toMatch(/MIT License/);
	});

	test('P03 repository (with its folder in the repository) and bugs URLs', () => {
		expect(pkg.repository.directory).toBe('packages/node-red');
		expect(pkg.repository.url).toMatch(/^git\+https:\/\//);
		expect(pkg.bugs.url).toMatch(/^https:\/\/.+\/issues$/);
	});

	test('P04 scoped package name', () => {
		expect(pkg.name).toBe('@chat-messaging/node-red-chat-messaging');
		expect(pkg.name).toMatch(/^@[a-z0-9-]+\/node-red-/);
	});

	test('P05 the node-red keyword', () => {
		expect(pkg.keywords).toContain('node-red');
	});

	test('P06 node-red.version declares the supported Node-RED versions', () => {
		expect(pkg['node-red'].version).toBe('>=4.0.0');
	});

	test('P07 engines.node', () => {
		expect(pkg.engines.node).toBe('>=20');
	});

	test('N01 node types are unique and clash with no core node', () => {
		const types = registeredTypes();
		expect(types.sort()).toEqual(['chat-messaging', 'chat-messaging-config', 'chat-messaging-event']);
		expect(new Set(types).size).toBe(types.length);
		const core = coreTypes();
		expect(core.has('inject')).toBe(true); // the core list was really read
		expect(types.filter((type) => core.has(type))).toEqual([]);
	});

	test('N02 an example flow under examples/ uses each non-config node; none holds a token', () => {
		const nonConfig = registeredTypes().filter((type) => type !== 'chat-messaging-config');
		const used = new Set(examples.flatMap((example) => example.flow.map((node) => node.type)));
		expect(nonConfig.filter((type) => !used.has(type))).toEqual([]);
		for (const example of examples) {
			const text = JSON.stringify(example.flow);
			expect(text).not.toMatch(/"(token|credentials)"/);
			// Every chat-messaging node of an example points at a config node of that example.
			const configIds = new Set(example.flow.filter((node) => node.type === 'chat-messaging-config').map((node) => node.id));
			for (const node of example.flow.filter((n) => String(n.type).startsWith('chat-messaging') && n.type !== 'chat-messaging-config')) {
				expect(configIds.has(node.config)).toBe(true);
			}
		}
	});

	test('the examples share ONE config node (same id and settings): importing a second example reuses the first one', () => {
		// Node-RED's import finds the config node's id already present: "Import copy" reuses the existing
		// config node of that id, and "View nodes" leaves it unticked (not imported) by default.
		const configs = examples.map((example) => example.flow.filter((node) => node.type === 'chat-messaging-config'));
		expect(configs.every((list) => list.length === 1)).toBe(true);
		const distinct = new Set(configs.map((list) => JSON.stringify(list[0])));
		expect(distinct.size).toBe(1);
		expect(configs[0]![0]).toMatchObject({ name: 'Chat Messaging', publicUrl: expect.stringMatching(/^https:\/\//) });
	});

	test('D01 at most six dependencies (only axios)', () => {
		expect(Object.keys(pkg.dependencies)).toEqual(['axios']);
		expect(Object.keys(pkg.dependencies).length).toBeLessThanOrEqual(6);
		// The core is compiled into dist/index.js: a development dependency only, never installed by users.
		expect(pkg.devDependencies).toEqual({ '@chat-messaging/core': expect.any(String) });
		expect(pkg.peerDependencies).toBeUndefined();
	});

	test('D03 (offline part) the declared axios range admits the installed axios', () => {
		const installed = JSON.parse(readFileSync(require.resolve('axios/package.json'), 'utf8')).version as string;
		expect(rangeAdmits(pkg.dependencies.axios, installed)).toBe(true);
		expect(rangeAdmits('^1.21.1', '2.0.0')).toBe(false); // the check can fail
	});

	test('the package ships the runtime, the generated editor, the icons and the examples', () => {
		const output = execFileSync('npm', ['pack', '--dry-run', '--json'], {
			cwd: packageDir,
			encoding: 'utf8',
			stdio: ['ignore', 'pipe', 'ignore'],
		});
		const files = (JSON.parse(output)[0].files as Array<{ path: string }>).map((file) => file.path);
		for (const required of [
			'package.json',
			'README.md',
			'LICENSE',
			'dist/index.js',
			'dist/index.html',
			'dist/locales/en-US/index.json',
			'dist/locales/en-US/index.html',
			'dist/icons/chat-messaging.svg',
			'dist/icons/chat-messaging-event.svg',
		]) {
			expect(files).toContain(required);
		}
		expect(files.filter((file) => file.startsWith('examples/'))).toHaveLength(examples.length);
		expect(files.some((file) => file.endsWith('.ts') || file.includes('test'))).toBe(false);
	});

	test('the editor HTML registers the three types with templates (their help in locales/en-US), and embeds every operation', () => {
		const html = readFileSync(join(packageDir, 'dist', 'index.html'), 'utf8');
		const help = readFileSync(join(packageDir, 'dist', 'locales', 'en-US', 'index.html'), 'utf8');
		for (const type of ['chat-messaging', 'chat-messaging-config', 'chat-messaging-event']) {
			expect(html).toContain(`RED.nodes.registerType('${type}'`);
			expect(html).toContain(`data-template-name="${type}"`);
			expect(help).toContain(`data-help-name="${type}"`);
		}
		const catalogueJson = /window\.CHAT_MESSAGING_CATALOGUE = (\{.*?\});<\/script>/s.exec(html)![1]!;
		const catalogue = JSON.parse(catalogueJson);
		// The catalogue as the core the package compiles in holds it.
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const { OPERATIONS, operationId } = require('@chat-messaging/core');
		const ids = catalogue.resources.flatMap((resource: any) => resource.operations.map((op: any) => op.id));
		// Every catalogue operation, plus the editor's Send (Send To picks one of the four sends).
		expect(ids.filter((id: string) => id !== 'message:send')).toEqual(OPERATIONS.map(operationId));
		expect(ids).toContain('message:send');
		for (const op of OPERATIONS) expect(html).toContain(`id="cm-op-${op.resource}-${op.operation}"`);
	});
});
