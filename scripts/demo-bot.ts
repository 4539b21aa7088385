/**
 * The Chat SDK demo: the sandbox (200 chats, token "demo") and the echo bot of examples/chat-sdk-bot on the Chat
 * Messaging adapter, subscribed to the sandbox's events. A customer's first message is sent at start so the answer
 * shows at once; then it prints how to write as a customer yourself. On loopback, no account.
 *   npm run demo:bot           (Ctrl-C stops everything)
 *   npm run demo:bot -- --once (stops after the first answer)
 * Environment: SANDBOX_PORT (4010).
 */
import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';

import { ensurePortFree, onStop, ROOT, SANDBOX_PORT, startDemoSandbox, TOKEN, tryInbound } from './demo-support';

const ECHO_BOT = join(ROOT, 'examples', 'chat-sdk-bot', 'echo.mts');

async function control<T>(url: string, path: string, body?: unknown): Promise<T> {
	const response = await fetch(`${url}${path}`, {
		method: body === undefined ? 'GET' : 'POST',
		headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	return ((await response.json()) as { data: T }).data;
}

async function main(): Promise<void> {
	const once = process.argv.includes('--once');
	await ensurePortFree(SANDBOX_PORT, 'SANDBOX_PORT');
	console.log('building the adapter ...');
	execFileSync('npm', ['run', '--silent', 'build'], {
		cwd: join(ROOT, 'packages', 'chat-adapter'),
		stdio: ['ignore', 'ignore', 'inherit'],
	});
	const sandbox = await startDemoSandbox();
	const bot = spawn(process.execPath, [join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), ECHO_BOT], {
		cwd: ROOT,
		env: { ...process.env, CHAT_MESSAGING_BASE_URL: sandbox.url, CHAT_MESSAGING_TOKEN: TOKEN },
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	const stop = async () => {
		bot.kill('SIGTERM');
		await new Promise((resolve) => bot.once('exit', resolve));
		await sandbox.stop();
	};
	onStop(stop);
	let output = '';
	bot.stdout?.on('data', (chunk: Buffer) => {
		output += chunk.toString();
		process.stdout.write(`  [bot] ${chunk.toString().trimEnd().split('\n').join('\n  [bot] ')}\n`);
	});
	while (!/listening on/.test(output)) {
		if (bot.exitCode !== null) throw new Error('the echo bot stopped before it listened');
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
	console.log(`\nThe sandbox: ${sandbox.url} (token "${TOKEN}"). A customer writes:`);
	const incoming = await control<{ chat_id: number; message: { text: string } }>(sandbox.url, '/_sandbox/incoming', {
		phone: '+4915112345678',
		text: 'Hello, is anyone there?',
		name: 'Demo Customer',
	});
	for (;;) {
		const page = await control<{ messages: Array<{ from_me: boolean; text: string }> }>(sandbox.url, `/chats/${incoming.chat_id}/messages`);
		const answer = page.messages.find((message) => message.from_me);
		if (answer) {
			console.log(`  customer: ${incoming.message.text}\n  bot:      ${answer.text}   (stored in chat ${incoming.chat_id})`);
			break;
		}
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
	if (once) {
		await stop();
		return;
	}
	console.log(`\nWrite as a customer yourself:\n  ${tryInbound(sandbox.url)}\nand read the chat's messages:`);
	console.log(`  curl -H 'Authorization: Bearer ${TOKEN}' ${sandbox.url}/chats/<chat_id>/messages\nCtrl-C stops the bot and the sandbox.`);
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
