/**
 * `@chat-messaging/client` as built (packages/client): its README example runs against the sandbox
 * (as a user would run it: the package installed, the code unchanged), and its typings come from
 * the catalogue and catch a misspelt field.
 */
import { execFile, execFileSync } from 'child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

import { startSandbox } from '@chat-messaging/sandbox';
import { builtPackage } from '../../../test/support/packages';

const built = builtPackage('client').dir;

/** A folder where `require('@chat-messaging/client')` finds the built package. */
function project(): string {
	const dir = mkdtempSync(join(tmpdir(), 'client-readme-'));
	mkdirSync(join(dir, 'node_modules', '@chat-messaging'), { recursive: true });
	symlinkSync(built, join(dir, 'node_modules', '@chat-messaging', 'client'), 'dir');
	return dir;
}

it("the README's example runs against the sandbox: lists the open chats, sends and waits for delivery", async () => {
	const example = /```js\n([\s\S]*?)```/.exec(readFileSync(join(built, 'README.md'), 'utf8'))?.[1];
	expect(example).toBeDefined();
	const sandbox = await startSandbox({ tokens: ['demo'], chats: 30, paceMs: 20, deliveredAfterMs: 100, readAfterMs: 0 });
	const dir = project();
	try {
		// The example sends to a new number, which opens a chat: count the open ones before it runs.
		const open = (await (await fetch(`${sandbox.url}/chats?closed=false`, { headers: { authorization: 'Bearer demo' } })).json()) as {
			data: { chats: unknown[]; has_more_pages: boolean };
		};
		writeFileSync(join(dir, 'example.js'), example ?? '');
		const output = await new Promise<string>((resolve, reject) => {
			execFile(
				process.execPath,
				['example.js'],
				{ cwd: dir, env: { ...process.env, CHAT_MESSAGING_URL: sandbox.url, CHAT_MESSAGING_TOKEN: 'demo' } },
				(error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)),
			);
		});
		expect(open.data.has_more_pages).toBe(false);
		expect(output).toMatch(new RegExp(`^${open.data.chats.length} open chats\\nmessage \\S+ delivered\\n$`));
	} finally {
		await sandbox.stop();
		rmSync(dir, { recursive: true, force: true });
	}
});

it('its typings come from the catalogue: a known call compiles, a misspelt field or method does not', () => {
	const dir = project();
	try {
		writeFileSync(
			join(dir, 'use.ts'),
			`import { createClient } from '@chat-messaging/client';
const client = createClient({ baseUrl: 'http://127.0.0.1:4010', token: 'demo' });
export const fine = [client.chats.getMany({ closed: false }), client.labels.add({ chat_id: 5, labels: ['vip'] }), client.messages.send({ sendTo: 'chat', chat_id: 5, text: 'hi', waitForStatus: 'delivered' })];
export const wrongField = client.chats.getMany({ closd: false });
export const wrongMethod = client.chats.fetchAll();
export const missingId = client.chats.get({});
`,
		);
		let errors = '';
		try {
			execFileSync(
				process.execPath,
				[require.resolve('typescript/bin/tsc'), '--noEmit', '--strict', '--moduleResolution', 'node', 'use.ts'],
				{ cwd: dir, encoding: 'utf8' },
			);
		} catch (error) {
			errors = String((error as { stdout?: string }).stdout);
		}
		const lines = errors
			.trim()
			.split('\n')
			.filter((line) => line.startsWith('use.ts'));
		expect(lines.map((line) => /use\.ts\((\d+),/.exec(line)?.[1])).toEqual(['4', '5', '6']);
		expect(errors).toMatch(/closd/);
		expect(errors).toMatch(/fetchAll/);
		expect(errors).toMatch(/chat_id/);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});
