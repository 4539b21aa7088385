/**
 * The core's runtime/ root holds the executor path alone (executor, validation, errors, pacing, pager, http/,
 * operations/); the event features live in runtime/events/, the composites' handlers, which wait for events too,
 * in runtime/composites/. Event code is recognised by `ChatEvent`, the
 * event every one of those features reads, returns or holds.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../support/packages';

const RUNTIME = join(REPO_ROOT, 'packages', 'core', 'src', 'runtime');
const handlesEvents = (text: string): boolean => /\bChatEvent\b/.test(text);
const filesIn = (dir: string): string[] =>
	readdirSync(dir)
		.map((name) => join(dir, name))
		.filter((path) => statSync(path).isFile() && path.endsWith('.ts'));

test('the marker finds event code: runtime/events/ defines ChatEvent', () => {
	expect(readFileSync(join(RUNTIME, 'events', 'delivery.ts'), 'utf8')).toMatch(/export type ChatEvent\b/);
	expect(filesIn(join(RUNTIME, 'events')).filter((file) => handlesEvents(readFileSync(file, 'utf8'))).length).toBeGreaterThan(3);
});

test("runtime/'s root holds no event code (it belongs in runtime/events/)", () => {
	const eventFiles = filesIn(RUNTIME).filter((file) => handlesEvents(readFileSync(file, 'utf8')));
	expect(eventFiles.map((file) => file.slice(REPO_ROOT.length + 1))).toEqual([]);
});
