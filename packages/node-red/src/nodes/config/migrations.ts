/** The configuration node's migrations (src/shared/migrate.ts says how they run). */
import { migrate, type FillStep } from '../../shared/migrate';

export const CONFIG_MIGRATIONS: readonly FillStep[] = [
	// Time zone came later: empty is the zone Node-RED runs in, where such flows always read dates.
	{ name: 'fillTimeZoneOfNodeRed', property: 'timeZone', value: '', missing: 'nullish' },
];

export const migrateConfig = <Node extends object>(node: Node): Node => migrate(node, CONFIG_MIGRATIONS).node;
