/** The catalogue covers the spec: its endpoints (as the sandbox serves them), the friendly operations, and sane descriptors. */
import { endpoints, findOperation, OPERATIONS, operationId, RESOURCES } from '../src';
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
