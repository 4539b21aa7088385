/** The catalogue covers the spec: 31 endpoints, the friendly operations, and sane descriptors. */
import {
	CATALOGUE,
	changeOf,
	endpoints,
	findOperation,
	isAdministrative,
	isCompositeVariant,
	needsConfirmation,
	OPERATIONS,
	operationId,
	RESOURCES,
	TOOLSETS,
} from '../src';

const SPEC_ENDPOINTS = [
	'GET /chats',
	'GET /chats/{chat_id}',
	'PATCH /chats/{chat_id}',
	'GET /chats/{chat_id}/labels',
	'PUT /chats/{chat_id}/labels',
	'POST /chats/{chat_id}/labels',
	'POST /chats/{chat_id}/notes',
	'GET /chats/{chat_id}/messages',
	'POST /messages',
	'POST /chats/{chat_id}/messages',
	'POST /messages/to_chat_name',
	'POST /messages/to_jid',
	'GET /messages/{message_uid}',
	'GET /messages/{message_uid}/status_history',
	'GET /messages/{uid}/reactions',
	'PUT /messages/{uid}/reactions',
	'GET /files',
	'POST /files',
	'POST /files_upload',
	'GET /files/{uid}',
	'DELETE /files/{uid}',
	'GET /chatapp_accounts',
	'GET /workspace',
	'GET /workspace/teammates',
	'POST /workspace/invitations',
	'DELETE /workspace/invitations/{user_id}',
	'POST /webhooks',
	'GET /webhooks',
	'GET /webhooks/{id}',
	'PUT /webhooks/{id}',
	'DELETE /webhooks/{id}',
];

const FRIENDLY = [
	'chat:close',
	'chat:reopen',
	'chat:assign',
	'chat:unassign',
	'chat:markRead',
	'chat:markUnread',
	'chat:rename',
	'chat:setAiAutoresponse',
	'label:remove',
	'label:removeAll',
	'reaction:remove',
	'file:download',
];

describe('catalogue', () => {
	it('lists exactly the 31 endpoints of the spec', () => {
		expect(endpoints().sort()).toEqual([...SPEC_ENDPOINTS].sort());
		expect(SPEC_ENDPOINTS).toHaveLength(31);
	});

	it('offers the friendly operations on the same endpoints', () => {
		for (const id of FRIENDLY) {
			const op = findOperation(id);
			expect(op.friendlyOf).toBeDefined();
			const base = findOperation(op.friendlyOf!);
			expect(`${op.method} ${op.path}`).toBe(`${base.method} ${base.path}`);
		}
		expect(OPERATIONS).toHaveLength(31 + FRIENDLY.length);
	});

	it('marks every operation that deletes or overwrites what its path names as destructive', () => {
		const destructive = OPERATIONS.filter((op) => op.destructive).map(operationId);
		expect(destructive.sort()).toEqual(
			[
				'chat:close',
				'file:delete',
				'invitation:revoke',
				'label:remove',
				'label:removeAll',
				'label:replace',
				'reaction:remove',
				'webhook:delete',
			].sort(),
		);
		for (const op of OPERATIONS.filter((candidate) => candidate.method === 'DELETE')) expect(op.destructive).toBe(true);
	});

	it('tells agents what each operation changes, its group, and what a person confirms', () => {
		// Reads read; creates and Add Labels only add; every other write overwrites, updates included.
		for (const op of CATALOGUE)
			expect([operationId(op), changeOf(op)]).toEqual([
				operationId(op),
				op.effect === 'read' ? 'read' : op.effect === 'create' || operationId(op) === 'label:add' ? 'adds' : 'overwrites',
			]);
		expect(TOOLSETS).toEqual(['chats', 'labels', 'notes', 'messages', 'reactions', 'files', 'workspace', 'team', 'webhooks']);
		expect(new Set(CATALOGUE.filter(isAdministrative).map((op) => op.resource))).toEqual(new Set(['invitation', 'webhook']));
		expect(CATALOGUE.filter(needsConfirmation).map(operationId).sort()).toEqual(
			[
				'file:delete',
				'invitation:create',
				'invitation:revoke',
				'label:removeAll',
				'label:replace',
				'webhook:create',
				'webhook:delete',
				'webhook:update',
			].sort(),
		);
		expect(CATALOGUE.filter(isCompositeVariant).map(operationId)).toEqual([
			'message:sendToPhone',
			'message:sendToChat',
			'message:sendToChatName',
			'message:sendToJid',
		]);
	});

	it('has unique ids and every path placeholder backed by a required path field', () => {
		const ids = OPERATIONS.map(operationId);
		expect(new Set(ids).size).toBe(ids.length);
		for (const op of OPERATIONS) {
			const placeholders = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
			const pathFields = op.fields.filter((f) => f.in === 'path');
			expect(pathFields.map((f) => f.name).sort()).toEqual(placeholders);
			expect(pathFields.every((f) => f.required)).toBe(true);
			expect(op.description.length).toBeGreaterThan(10);
			for (const f of op.fields) expect(f.description.length).toBeGreaterThan(3);
		}
	});

	it('classifies effects for safe retries: every creating POST is a create', () => {
		for (const op of OPERATIONS) {
			if (op.method === 'GET') expect(op.effect).toBe('read');
			else if (op.method === 'POST') expect(op.effect).toBe(op.path.endsWith('/labels') ? 'idempotent' : 'create');
			else expect(op.effect).toBe('idempotent');
		}
	});

	it('groups operations one resource per file, in editor order', () => {
		expect(RESOURCES.map((r) => r.key)).toEqual([
			'chat',
			'label',
			'note',
			'message',
			'reaction',
			'file',
			'account',
			'workspace',
			'teammate',
			'invitation',
			'webhook',
		]);
		for (const resource of RESOURCES) for (const op of resource.operations) expect(op.resource).toBe(resource.key);
	});
});
