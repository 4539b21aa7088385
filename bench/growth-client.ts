/**
 * One Return All in a fresh process, for bench/growth.ts: the executor (pacing off) or a bare sequential loop over
 * `<url>` with `<token>`; prints `{ms, chats, peakRssMb, heapAfterMb}` as JSON. In its own process so that its peak
 * memory is its own (the sandbox runs in the parent).
 * Usage: tsx bench/growth-client.ts <executor|loop> <url> <token>
 */
import { scriptExecutor } from './contestants';
import { sequentialList } from './lib';

async function main(): Promise<void> {
	const [mode, url, token] = process.argv.slice(2) as [string, string, string];
	const started = performance.now();
	const chats =
		mode === 'executor'
			? ((await scriptExecutor(url, token, { paced: false }).run('chat:getAll', {})) as unknown[]).length
			: (await sequentialList(url, token)).length;
	const ms = performance.now() - started;
	const heapAfterMb = process.memoryUsage().heapUsed / 1024 / 1024;
	process.stdout.write(JSON.stringify({ ms, chats, peakRssMb: process.resourceUsage().maxRSS / 1024, heapAfterMb }));
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
