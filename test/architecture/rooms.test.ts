/**
 * The room-loop finder `npm run lint` runs (scripts/rooms.ts) on a fixture: two folders whose files never import in a
 * circle, yet each folder imports the other. The walk over the real packages is lint's.
 */
import { join } from 'node:path';

import { roomLoops } from '../../scripts/rooms';
import { REPO_ROOT } from '../support/packages';

describe('room loops', () => {
	it('finds folders that import each other though no file cycles', () => {
		const loops = roomLoops(join(REPO_ROOT, 'test', 'architecture', 'fixtures', 'rooms'));
		expect(loops).toEqual([
			{
				folder: 'test/architecture/fixtures/rooms',
				rooms: ['left/', 'right/'],
				imports: ['left/a.ts → right/b.ts', 'right/b.ts → left/c.ts'],
			},
		]);
	});
});
