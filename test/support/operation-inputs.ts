/**
 * One input per catalogue operation, for the tests that run every operation against the sandbox (the executor's,
 * packages/core/test/executor-sandbox.test.ts, and the MCP server's, packages/mcp-server/test/output-schemas.test.ts).
 * The records the inputs point at are made by each test first (a chat, a sent message, an upload, an invitation, a
 * webhook); a test states what it sends differently by spreading its own entries over the table.
 */
export interface OperationInputRecords {
	chat: { id: number; jid?: string };
	teammateEmail: string;
	sentMessageUid: string;
	uploadUid: string;
	invitationUserId: string;
	webhookId: number;
	/** A file's bytes as the caller passes them: raw for the executor, base64 for an MCP tool. */
	fileData: (bytes: Uint8Array) => unknown;
}

export function operationInputs(records: OperationInputRecords): Record<string, Record<string, unknown>> {
	const { chat, sentMessageUid: uid } = records;
	return {
		'chat:getAll': { closed: false },
		'chat:get': { chat_id: chat.id },
		'chat:update': { chat_id: chat.id, read: true },
		'chat:close': { chat_id: chat.id },
		'chat:reopen': { chat_id: chat.id },
		'chat:assign': { chat_id: chat.id, responsible: records.teammateEmail },
		'chat:unassign': { chat_id: chat.id },
		'chat:markRead': { chat_id: chat.id },
		'chat:markUnread': { chat_id: chat.id },
		'chat:rename': { chat_id: chat.id, name: `Renamed ${chat.id}` },
		'chat:setAiAutoresponse': { chat_id: chat.id, ai_autoresponse_enabled: true },
		'label:get': { chat_id: chat.id },
		'label:add': { chat_id: chat.id, labels: ['alpha', 'beta'] },
		'label:replace': { chat_id: chat.id, labels: ['alpha', 'gamma'] },
		'label:remove': { chat_id: chat.id, labels: ['alpha'] },
		'label:removeAll': { chat_id: chat.id },
		'note:add': { chat_id: chat.id, text: 'internal' },
		'message:sendToPhone': { phone: '+4915100000001', text: 'hello new number', chat_name: 'New Lead' },
		'message:sendToChat': { chat_id: chat.id, text: 'hi', reply_to: uid },
		'message:sendToChatName': { chat_name: `Renamed ${chat.id}`, text: 'by name' },
		'message:sendToJid': { jid: chat.jid, text: 'by jid' },
		'message:get': { message_uid: uid },
		'message:getStatusHistory': { message_uid: uid },
		'message:getAll': { chat_id: chat.id },
		'reaction:get': { uid },
		'reaction:set': { uid, reaction: '👍' },
		'reaction:remove': { uid },
		'file:getAll': { filename: 'hello' },
		'file:uploadFromUrl': { download_url: 'https://cdn.example.com/brochure.pdf' },
		'file:upload': { file: { data: records.fileData(new Uint8Array([1, 2, 3])), filename: 'b.bin' } },
		'file:get': { uid: records.uploadUid },
		'file:download': { uid: records.uploadUid },
		'file:delete': { uid: records.uploadUid },
		'account:getAll': {},
		'workspace:get': {},
		'teammate:getAll': {},
		'invitation:create': { email: 'second@example.com' },
		'invitation:revoke': { user_id: records.invitationUserId },
		'webhook:create': { event_type: 'message:sent:new', url: 'http://127.0.0.1:9/other', enabled: false },
		'webhook:getAll': {},
		'webhook:get': { id: records.webhookId },
		'webhook:update': { id: records.webhookId, url: 'http://127.0.0.1:9/moved' },
		'webhook:delete': { id: records.webhookId },
		// The composites (no executor operation of their own: the MCP server's tools run them).
		'message:send': { sendTo: 'chat', chat_id: chat.id, text: 'sent and waited for', waitForStatus: 'delivered', waitTimeout: 10 },
		'message:sendAndWaitForReply': { sendTo: 'chat', chat_id: chat.id, text: 'anyone there?', replyTimeout: 1, pollInterval: 1 },
		'message:getConversation': { chat_id: chat.id, lastMessages: 3 },
	};
}
