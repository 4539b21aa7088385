/**
 * End-to-end test of the n8n package in a real n8n 2.x on Node 24 (`npm run test:e2e:n8n`).
 *
 * Builds and packs the repository, installs the tarball as a community package into a fresh n8n user
 * folder, starts the sandbox, imports a credential and workflows, then checks with real n8n
 * executions. The cases, in the order they run:
 * - setup-cases.ts: runtimes, package, install, sandbox, import (each stops the run when it fails);
 * - action-cases.ts: the action node with `n8n execute` (list, send, labels, version 2, a saved version 1
 *   workflow, bad input, On Error);
 * - example-cases.ts: the example workflows run on demand; then n8n started (setup-cases.ts);
 * - webhook-trigger-cases.ts: the trigger's webhook lifecycle (subscribe with a secret, one execution for a
 *   duplicated delivery, a restart, the test listener, unsubscribe on deactivation);
 * - example-cases.ts: the example workflows started by the webhook trigger;
 * - send-and-wait-cases.ts and trigger-cases.ts: Send and Wait, the Poll Trigger, Send and Wait for Reply;
 * - last, the token absent from every output, log, execution and stored workflow.
 * Prints per-step timings and ends with `N passed, N failed`.
 *
 * Environment: KEEP_E2E_DIR=1 keeps the temporary folder (logs, n8n database) even on success;
 * E2E_SKIP_BUILD=1 packs the dist/ already built instead of running `npm run build`.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { assert } from './checks';
import { actionCases } from './action-cases';
import { exampleRunNowCases, exampleWebhookCases } from './example-cases';
import { N8nE2e, type Case } from './run-context';
import { setupCases, startCases } from './setup-cases';
import { runSendAndWaitCases } from './send-and-wait-cases';
import { runTriggerCases } from './trigger-cases';
import { webhookTriggerCases } from './webhook-trigger-cases';
import { WORKFLOW_IDS } from './workflows';

const tokenCase: Case = {
	name: 'the token appears in no n8n output, log, execution or stored workflow',
	run: async (e) => {
		const stored = await e.running().publicApi('GET', '/workflows?limit=100');
		const executionsJson = JSON.stringify(await e.executions());
		await e.running().stop();
		const startLog = readFileSync(join(e.logDir, 'n8n-start.log'), 'utf8');
		const places: Record<string, string> = {
			'CLI output': e.cliOutputs.join('\n'),
			'n8n start log': startLog,
			executions: executionsJson,
			workflows: JSON.stringify(stored.body),
		};
		const leaks = Object.entries(places)
			.filter(([, text]) => text.includes(e.token))
			.map(([where]) => where);
		assert(leaks.length === 0, `the token appears in: ${leaks.join(', ')}`);
		assert(JSON.stringify(stored.body).includes(WORKFLOW_IDS.trigger), 'the workflow listing is not what was checked');
		return `searched ${Object.keys(places).join(', ')}`;
	},
};

const e = new N8nE2e();

async function runCases(cases: Case[]): Promise<void> {
	for (const c of cases) await e.checks.check(c.name, () => c.run(e), c.stopsRunOnFailure);
}

async function main(): Promise<void> {
	const onSignal = (signal: NodeJS.Signals) => {
		console.log(`\n${signal}: stopping n8n and the sandbox`);
		e.n8n?.killNow();
		if (process.env.KEEP_E2E_DIR !== '1') rmSync(e.workDir, { recursive: true, force: true });
		process.exit(130);
	};
	process.on('SIGINT', onSignal);
	process.on('SIGTERM', onSignal);
	process.on('exit', () => e.n8n?.killNow());
	console.log(`n8n end-to-end test (work folder ${e.workDir})`);

	await runCases([...setupCases, ...actionCases, ...exampleRunNowCases, ...startCases, ...webhookTriggerCases, ...exampleWebhookCases]);
	const { check } = e.checks;
	// n8n's standard Send and Wait and its human-in-the-loop tool (test/e2e/n8n/send-and-wait-cases.ts).
	await runSendAndWaitCases({ check, n8n: e.running, sandbox: e.sandbox, typeVersion: e.actionDefaultVersion });
	// The poll trigger and Send and Wait for Reply (test/e2e/n8n/trigger-cases.ts).
	await runTriggerCases({
		check,
		n8n: e.running,
		sandbox: e.sandbox,
		chats: e.allChats.filter((chat) => !chat.is_group && chat.phone).slice(1, 3),
	});
	await runCases([tokenCase]);

	await e.n8n?.stop();
	await e.stopSandbox?.();
	await e.proxy?.stop();
	const { failed } = e.checks;
	if (failed === 0 && process.env.KEEP_E2E_DIR !== '1') rmSync(e.workDir, { recursive: true, force: true });
	else console.log(`work folder kept: ${e.workDir}`);
	console.log(`total ${e.checks.totalMs} ms`);
	console.log(e.checks.summary());
	process.exitCode = failed === 0 ? 0 : 1;
}

main().catch((error: unknown) => {
	console.error(e.redact(error instanceof Error ? (error.stack ?? error.message) : String(error)));
	console.log(e.checks.summary(true));
	process.exit(1);
});
