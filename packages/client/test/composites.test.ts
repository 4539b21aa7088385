/**
 * The client offers the catalogue's composites as methods beside the endpoints (client.messages.send,
 * client.messages.sendAndWaitForReply), run by the core's handler, against the sandbox over real HTTP.
 */
import { startSandbox } from '@chat-messaging/sandbox';
import { createClient } from '../src';

it('client.messages.send sends by its Send To choice; a wrong choice is refused naming it', async () => {
	const sandbox = await startSandbox({ paceMs: 20, deliveredAfterMs: 40, readAfterMs: 80, seed: 3, tokens: ['client-composite'] });
	try {
		const client = createClient({ baseUrl: sandbox.url, token: 'client-composite' });
		const chats = (await client.chats.getMany({ group: false })) as Array<Record<string, unknown>>;
		const chat = chats.find((candidate) => candidate.is_allowed_to_message !== false)!;
		const sent = (await client.messages.send({
			sendTo: 'chat',
			chat_id: chat.id,
			text: 'from the client',
			waitForStatus: 'sent',
		})) as Record<string, any>;
		expect(sent.message_uid).toEqual(expect.any(String));
		expect(['sent', 'delivered', 'read']).toContain(sent.message.status);
		await expect(client.messages.send({ sendTo: 'pigeon', text: 'x' })).rejects.toThrow(/^Send To: must be one of/);
	} finally {
		await sandbox.stop();
	}
});
