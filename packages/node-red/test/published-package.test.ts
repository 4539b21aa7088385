/**
 * The BUILT Node-RED package (packages/node-red as `npm run build` left it): what Node-RED's own scorecard,
 * `node-red-dev validate` (run by `npm run lint` on the packed tarball, packages/node-red/scripts/validate.mjs),
 * does not check. Its P01-P08, N01 (against the flow library), N02, D01-D03 are not repeated here, except P05:
 * node-red-dev 0.1.6 records P05 as passed even when the keyword is missing.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { loadEditor } from '../../../contract/contract';
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

const examples = readdirSync(join(packageDir, 'examples'))
	.filter((name) => name.endsWith('.json'))
	.map((name) => ({ name, flow: JSON.parse(readFileSync(join(packageDir, 'examples', name), 'utf8')) as Array<Record<string, unknown>> }));

describe('The built Node-RED package, beyond node-red-dev validate', () => {
	test('P05 the node-red keyword (node-red-dev does not fail without it)', () => {
		expect(pkg.keywords).toContain('node-red');
	});

	test('node types are unique and clash with no core node (node-red-dev compares with the flow library only)', () => {
		const types = registeredTypes();
		expect(types.sort()).toEqual(['chat-messaging', 'chat-messaging-config', 'chat-messaging-event']);
		expect(new Set(types).size).toBe(types.length);
		const core = coreTypes();
		expect(core.has('inject')).toBe(true); // the core list was really read
		expect(types.filter((type) => core.has(type))).toEqual([]);
	});

	test('no example holds a token, and each points its nodes at its own config node', () => {
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

	test('one runtime dependency, axios; the core is compiled in', () => {
		expect(Object.keys(pkg.dependencies)).toEqual(['axios']);
		// The core is compiled into dist/index.js: a development dependency only, never installed by users; the
		// others are typings (@types/node-red and its editor side).
		const { '@chat-messaging/core': core, ...others } = pkg.devDependencies as Record<string, string>;
		expect(core).toEqual(expect.any(String));
		expect(Object.keys(others).filter((name) => !name.startsWith('@types/'))).toEqual([]);
		expect(pkg.peerDependencies).toBeUndefined();
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
		// Registered when the editor runs its script, as Node-RED's editor does.
		const registered = Object.keys(loadEditor(html).definitions).sort();
		expect(registered).toEqual(['chat-messaging', 'chat-messaging-config', 'chat-messaging-event']);
		for (const type of registered) {
			expect(html).toContain(`data-template-name="${type}"`);
			expect(help).toContain(`data-help-name="${type}"`);
		}
		const catalogueJson = /window\.CHAT_MESSAGING_CATALOGUE = (\{.*?\});<\/script>/s.exec(html)![1]!;
		const catalogue = JSON.parse(catalogueJson);
		// The catalogue as the core the package compiles in holds it.
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const { OPERATIONS, operationId } = require('@chat-messaging/core');
		const ids = catalogue.resources.flatMap((resource: any) => resource.operations.map((op: any) => op.id));
		// Every catalogue operation, plus the editor's Send (Send To picks one of the four sends) and Get Conversation.
		const composites = ['message:send', 'message:getConversation'];
		expect(ids.filter((id: string) => !composites.includes(id))).toEqual(OPERATIONS.map(operationId));
		expect(ids).toEqual(expect.arrayContaining(composites));
		for (const op of OPERATIONS) expect(html).toContain(`id="cm-op-${op.resource}-${op.operation}"`);
	});
});
