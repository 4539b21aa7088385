/**
 * Every tool as an agent sees it (name, title, description, input and output schema, annotations) against its
 * snapshot in contract/mcp-tools, so a change of what agents see is a reviewed diff; UPDATE_TOOLSNAPS=1 rewrites the
 * snapshots. The README's tool table is made from the snapshots (scripts/toolTable.ts) and must match them.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { README, readSnapshots, SNAPSHOT_DIR, snapshotOf, snapshotText, withToolTable } from '../scripts/toolTable';
import { catalogueTools } from '../src/tools';

const update = process.env.UPDATE_TOOLSNAPS === '1';
const tools = catalogueTools();
const fileOf = (name: string) => join(SNAPSHOT_DIR, `${name}.snap.json`);

describe('tool snapshots', () => {
	if (update) {
		mkdirSync(SNAPSHOT_DIR, { recursive: true });
		for (const file of readdirSync(SNAPSHOT_DIR)) if (file.endsWith('.snap.json')) rmSync(join(SNAPSHOT_DIR, file));
		for (const tool of tools) writeFileSync(fileOf(tool.name), snapshotText(snapshotOf(tool)));
	}

	it.each(tools.map((tool) => [tool.name, tool] as const))('%s is as its snapshot shows it', (name, tool) => {
		if (!existsSync(fileOf(name)))
			throw new Error(`No snapshot of ${name}: run UPDATE_TOOLSNAPS=1 npx jest packages/mcp-server/test/toolsnaps`);
		expect(snapshotText(snapshotOf(tool))).toBe(readFileSync(fileOf(name), 'utf8'));
	});

	it('has a snapshot of no tool that is gone', () => {
		const snapshotted = readdirSync(SNAPSHOT_DIR).filter((file) => file.endsWith('.snap.json'));
		expect(snapshotted.sort()).toEqual(tools.map((tool) => `${tool.name}.snap.json`).sort());
	});

	it("the README's tool table is the snapshots' (npx tsx packages/mcp-server/scripts/toolTable.ts rewrites it)", () => {
		const readme = readFileSync(README, 'utf8');
		expect(withToolTable(readme, readSnapshots())).toBe(readme);
	});
});
