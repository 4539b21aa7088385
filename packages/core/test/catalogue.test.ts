/** The catalogue covers the spec: its endpoints (as the sandbox serves them), the friendly operations, and sane descriptors. */
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
import { endpointKey, specEndpoints } from '../../../test/support/spec-endpoints';

describe('catalogue', () => {
	it('lists exactly the endpoints of the spec, one descriptor each', () => {
		const spec = specEndpoints();
		expect(spec.length).toBeGreaterThan(0);
		expect(
			endpoints()
				.map((endpoint) => endpointKey(...(endpoint.split(' ') as [string, string])))
				.sort(),
		).toEqual([...spec].sort());
		expect(OPERATIONS.filter((op) => !op.friendlyOf)).toHaveLength(spec.length);
	});

	it('offers the friendly operations on the same endpoints', () => {
		const friendly = OPERATIONS.filter((op) => op.friendlyOf);
		expect(friendly.length).toBeGreaterThan(0);
		for (const op of friendly) {
			const base = findOperation(op.friendlyOf!);
			expect(base.friendlyOf).toBeUndefined();
			expect(`${op.method} ${op.path}`).toBe(`${base.method} ${base.path}`);
		}
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
