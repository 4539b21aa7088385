/**
 * The UI contract: what saved n8n workflows and Node-RED flows depend on, read from the BUILT packages
 * (the n8n node and credential descriptions as n8n loads them, the Node-RED editor file as Node-RED
 * serves it) and compared with the files committed next to this one. n8n stores a node's type, version and only the parameters that
 * differ from their defaults; Node-RED stores each node's properties and the editor's field values.
 * So a removed name, option value or changed default silently changes or breaks what users saved.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import type {
	ICredentialType,
	INodeProperties,
	INodePropertyCollection,
	INodePropertyOptions,
	INodeType,
	INodeTypeDescription,
	IVersionedNodeType,
} from 'n8n-workflow';

const ROOT = join(__dirname, '..');
/** The built packages the contract reads (`npm run build` builds them). */
const N8N_PACKAGE = join(ROOT, 'packages', 'n8n');
export const NODE_RED_EDITOR = join(ROOT, 'packages', 'node-red', 'dist', 'index.html');
export const CONTRACT_FILES = { n8n: join(__dirname, 'n8n.json'), nodeRed: join(__dirname, 'node-red.json') };

/** n8n's `displayOptions.show` / `hide`: parameter name → values. */
export type Condition = Record<string, unknown[]>;

export interface ParameterContract {
	name: string;
	type: string;
	default: unknown;
	required?: true;
	show?: Condition;
	hide?: Condition;
	/** Values of an options / multiOptions parameter. */
	values?: unknown[];
	/** Members of a collection, or the groups of a fixedCollection. */
	members?: ParameterContract[];
}

export interface N8nContract {
	/** Keyed by the type saved workflows hold: `<package name>.<node name>`. */
	nodes: Record<string, { versions: Record<string, ParameterContract[]>; credentials: string[] }>;
	credentials: Record<string, ParameterContract[]>;
}

export interface FieldContract {
	kind: string;
	required?: true;
	default?: unknown;
	values?: string[];
}

export interface NodeRedTypeContract {
	/** The node's properties, as saved in flows, with the value a new node starts with. */
	defaults: Record<string, unknown>;
	credentials?: string[];
	/** Allowed values of a property (`outputMode`, `waitFor`, `events`). */
	choices?: Record<string, string[]>;
	/** The action node: `resource:operation` → the names (and rules) of the saved `fields`. */
	operations?: Record<string, Record<string, FieldContract>>;
}

export interface UiContract {
	n8n: N8nContract;
	nodeRed: Record<string, NodeRedTypeContract>;
}

export interface ContractDiff {
	/** What would break or change saved workflows and flows. */
	breaking: string[];
	/** What is new; passes the check. */
	additions: string[];
}

// ---------------------------------------------------------------------------------------------
// What the packages ship today.

/**
 * The tool variant's Description defaults to the catalogue's tool description of the operation: text a
 * model reads, which follows the catalogue's wording (held in n8n-agent-tools.json by the agents e2e),
 * not a value whose change alters what a saved workflow does. Its name and place are held; its text is not.
 */
const TOOL_DESCRIPTION_DEFAULT = '<the catalogue tool description of the operation>';

function parameterContract(property: INodeProperties): ParameterContract {
	const contract: ParameterContract = {
		name: property.name,
		type: property.type,
		default: property.name === 'toolDescription' ? TOOL_DESCRIPTION_DEFAULT : (property.default ?? null),
	};
	if (property.required) contract.required = true;
	if (property.displayOptions?.show) contract.show = property.displayOptions.show as Condition;
	if (property.displayOptions?.hide) contract.hide = property.displayOptions.hide as Condition;
	if ((property.type === 'options' || property.type === 'multiOptions') && property.options) {
		contract.values = (property.options as INodePropertyOptions[]).map((option) => option.value);
	}
	if (property.type === 'collection' && property.options) {
		contract.members = (property.options as INodeProperties[]).map(parameterContract);
	}
	if (property.type === 'fixedCollection' && property.options) {
		contract.members = (property.options as INodePropertyCollection[]).map((group) => ({
			name: group.name,
			type: 'group',
			default: null,
			members: group.values.map(parameterContract),
		}));
	}
	return contract;
}

/** Instances of the classes the built files of the n8n package export, loaded as n8n loads them. */
function packageClasses<T>(distFiles: string[]): T[] {
	return distFiles.flatMap((file) => {
		const path = join(N8N_PACKAGE, file);
		if (!existsSync(path)) throw new Error(`${path} is missing: run \`npm run build\` first`);
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const exported = require(path) as Record<string, new () => T>;
		return Object.values(exported)
			.filter((value) => typeof value === 'function')
			.map((Class) => new Class());
	});
}

/** Every version a node serves, with its description (a VersionedNodeType serves one per version). */
export function descriptionsByVersion(node: INodeType | IVersionedNodeType): Array<[number, INodeTypeDescription]> {
	if ('nodeVersions' in node) return Object.entries(node.nodeVersions).map(([version, type]) => [Number(version), type.description]);
	const versions = Array.isArray(node.description.version) ? node.description.version : [node.description.version];
	return versions.map((version) => [version, node.description]);
}

interface PackageJson {
	name: string;
	n8n: { nodes: string[]; credentials: string[] };
}
const packageJson = (): PackageJson => JSON.parse(readFileSync(join(N8N_PACKAGE, 'package.json'), 'utf8')) as PackageJson;

/** Every n8n node the package declares, at every version it serves. */
export function n8nNodes(): Array<{ type: string; name: string; version: number; description: INodeTypeDescription }> {
	const pkg = packageJson();
	return packageClasses<INodeType | IVersionedNodeType>(pkg.n8n.nodes).flatMap((node) =>
		descriptionsByVersion(node).map(([version, description]) => ({
			type: `${pkg.name}.${node.description.name}`,
			name: node.description.name,
			version,
			description,
		})),
	);
}

/**
 * What a test puts in place of a built package's part, to see how a change of the catalogue would reach the
 * contract without building: `n8nProperties` node name → version → properties; `nodeRedEditorHtml` the editor file.
 */
export interface ContractOverrides {
	n8nProperties?: Record<string, Record<number, INodeProperties[]>>;
	nodeRedEditorHtml?: string;
}

/** What the contract reads of the catalogue the Node-RED editor embeds (`window.CHAT_MESSAGING_CATALOGUE`). */
export interface EmbeddedCatalogue {
	choices: Record<string, Array<{ value: string }>>;
	resources: Array<{
		key: string;
		operations: Array<{
			id: string;
			fields: Array<{ name: string; kind: string; required?: boolean; default?: unknown; options?: Array<{ value: string }> }>;
		}>;
	}>;
}

function n8nContract(replacements: ContractOverrides['n8nProperties'] = {}): N8nContract {
	const contract: N8nContract = { nodes: {}, credentials: {} };
	for (const { type, version, description } of n8nNodes()) {
		const node = (contract.nodes[type] ??= { versions: {}, credentials: [] });
		node.versions[version] = (replacements[description.name]?.[version] ?? description.properties).map(parameterContract);
		node.credentials = (description.credentials ?? []).map((credential) => credential.name);
	}
	for (const credential of packageClasses<ICredentialType>(packageJson().n8n.credentials)) {
		contract.credentials[credential.name] = credential.properties.map(parameterContract);
	}
	return contract;
}

/** A node definition as the editor registers it (RED.nodes.registerType). */
export interface EditorDefinition {
	defaults?: Record<string, { value?: unknown; validate?: (this: object, value: never) => unknown }>;
	credentials?: Record<string, unknown>;
	[key: string]: unknown;
}

/** Node-RED's editor as the browser runs it: the node definitions and the catalogue it embeds. */
export function loadEditor(html: string): { definitions: Record<string, EditorDefinition>; catalogue: EmbeddedCatalogue } {
	const definitions: Record<string, EditorDefinition> = {};
	const window: { CHAT_MESSAGING_CATALOGUE?: EmbeddedCatalogue } = {};
	for (const [, script] of html.matchAll(/<script type="text\/javascript">([\s\S]*?)<\/script>/g)) {
		runInNewContext(script ?? '', {
			window,
			RED: { nodes: { registerType: (type: string, definition: EditorDefinition) => (definitions[type] = definition) } },
		});
	}
	if (!window.CHAT_MESSAGING_CATALOGUE) throw new Error('the editor HTML holds no CHAT_MESSAGING_CATALOGUE');
	return { definitions, catalogue: window.CHAT_MESSAGING_CATALOGUE };
}

/** Plain JSON out of the editor's realm. */
const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value ?? null));

function nodeRedContract(html: string): Record<string, NodeRedTypeContract> {
	const { definitions, catalogue } = loadEditor(html);
	const contract: Record<string, NodeRedTypeContract> = {};
	for (const [type, definition] of Object.entries(definitions)) {
		const defaults = Object.fromEntries(Object.entries(definition.defaults ?? {}).map(([name, spec]) => [name, plain(spec.value)]));
		const entry: NodeRedTypeContract = { defaults };
		if (definition.credentials) entry.credentials = Object.keys(definition.credentials);
		const choices = Object.entries(catalogue.choices).filter(([name]) => name in defaults);
		if (choices.length) entry.choices = Object.fromEntries(choices.map(([name, list]) => [name, list.map((choice) => choice.value)]));
		if ('fields' in defaults) entry.operations = operationFields(catalogue);
		contract[type] = entry;
	}
	return contract;
}

function operationFields(catalogue: EmbeddedCatalogue): Record<string, Record<string, FieldContract>> {
	const operations: Record<string, Record<string, FieldContract>> = {};
	for (const resource of catalogue.resources) {
		for (const op of resource.operations) {
			operations[op.id] = Object.fromEntries(
				op.fields.map((field) => {
					const contract: FieldContract = { kind: field.kind };
					if (field.required) contract.required = true;
					if (field.default !== undefined) contract.default = plain(field.default);
					if (field.options) contract.values = field.options.map((option) => option.value);
					return [field.name, contract];
				}),
			);
		}
	}
	return operations;
}

/** The contract of the built packages, with any part a test puts in its place. */
export function currentContract(overrides: ContractOverrides = {}): UiContract {
	if (!overrides.nodeRedEditorHtml && !existsSync(NODE_RED_EDITOR))
		throw new Error(`${NODE_RED_EDITOR} is missing: run \`npm run build\` first`);
	return {
		n8n: n8nContract(overrides.n8nProperties),
		nodeRed: nodeRedContract(overrides.nodeRedEditorHtml ?? readFileSync(NODE_RED_EDITOR, 'utf8')),
	};
}

export function readContract(): UiContract {
	return {
		n8n: JSON.parse(readFileSync(CONTRACT_FILES.n8n, 'utf8')) as N8nContract,
		nodeRed: JSON.parse(readFileSync(CONTRACT_FILES.nodeRed, 'utf8')) as Record<string, NodeRedTypeContract>,
	};
}

/** JSON with short values on one line, so a diff of the contract files reads like the change. */
function stringify(value: unknown, indent = ''): string {
	const flat = JSON.stringify(value);
	if (value === null || typeof value !== 'object' || flat.length <= 120) return flat;
	const inner = `${indent}  `;
	const lines = Array.isArray(value)
		? value.map((item) => inner + stringify(item, inner))
		: Object.entries(value)
				.filter(([, item]) => item !== undefined)
				.map(([key, item]) => `${inner}${JSON.stringify(key)}: ${stringify(item, inner)}`);
	return Array.isArray(value) ? `[\n${lines.join(',\n')}\n${indent}]` : `{\n${lines.join(',\n')}\n${indent}}`;
}

export function writeContract(contract: UiContract): void {
	writeFileSync(CONTRACT_FILES.n8n, `${stringify(contract.n8n)}\n`);
	writeFileSync(CONTRACT_FILES.nodeRed, `${stringify(contract.nodeRed)}\n`);
}

// ---------------------------------------------------------------------------------------------
// The comparison.

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
const quote = (value: unknown): string => (typeof value === 'string' ? `'${value}'` : JSON.stringify(value));
const describe = (condition: Condition): string =>
	Object.entries(condition)
		.map(([name, values]) => `${name} ${values.map(quote).join(' or ')}`)
		.join(', ');
const shownFor = (parameter: ParameterContract): string => (parameter.show ? ` (shown for ${describe(parameter.show)})` : '');

/** Whether a node version meets an `@version` condition's allowed values (a number, or n8n's `_cnd` comparisons). */
function versionMeets(version: number, allowed: unknown[]): boolean {
	return allowed.some((value) => {
		if (typeof value === 'number') return value === version;
		const cnd = (value as { _cnd?: Record<string, number> } | null)?._cnd;
		if (!cnd) return false;
		return Object.entries(cnd).every(([op, bound]) =>
			op === 'gte'
				? version >= bound
				: op === 'gt'
					? version > bound
					: op === 'lte'
						? version <= bound
						: op === 'lt'
							? version < bound
							: op === 'eq'
								? version === bound
								: false,
		);
	});
}

/**
 * Whether `after` is shown wherever `before` was: it asks no more of the other parameters. In a given version an
 * `@version` condition that version meets asks nothing (a parameter kept for version 1 while a later one gets another).
 */
function covers(after: ParameterContract, before: ParameterContract, version?: number): boolean {
	const showOk = Object.entries(after.show ?? {}).every(
		([name, allowed]) =>
			(name === '@version' && version !== undefined && versionMeets(version, allowed)) ||
			(before.show?.[name] ?? [undefined]).every((value) => allowed.some((a) => same(a, value))),
	);
	const hideOk = Object.entries(after.hide ?? {}).every(([name, hidden]) =>
		hidden.every((value) => (before.hide?.[name] ?? []).some((b) => same(b, value))),
	);
	return showOk && hideOk;
}

interface RemovedValue {
	name: string;
	value: unknown;
	show?: Condition;
}

/** A parameter shown only for option values that are gone is already reported with them. */
function explainedBy(parameter: ParameterContract, removed: RemovedValue[]): boolean {
	return Object.entries(parameter.show ?? {}).some(([name, values]) =>
		values.every((value) =>
			removed.some(
				(r) =>
					r.name === name &&
					same(r.value, value) &&
					Object.entries(r.show ?? {}).every(([key, allowed]) =>
						(parameter.show?.[key] ?? []).every((v) => allowed.some((a) => same(a, v))),
					),
			),
		),
	);
}

const isEmpty = (value: unknown): boolean => value === '' || value === null || value === undefined;

function compareParameters(
	where: string,
	before: ParameterContract[],
	after: ParameterContract[],
	diff: ContractDiff,
	path = '',
	version?: number,
): void {
	const removed: RemovedValue[] = [];
	const matched = new Set<ParameterContract>();
	const missing: ParameterContract[] = [];
	for (const old of before) {
		const candidates = after.filter((p) => p.name === old.name && covers(p, old, version));
		const now = candidates.find((p) => same(p.show, old.show) && same(p.hide, old.hide)) ?? candidates[0];
		if (!now) {
			missing.push(old);
			continue;
		}
		matched.add(now);
		compareParameter(where, old, now, diff, path, removed, version);
	}
	for (const old of missing) {
		if (explainedBy(old, removed)) continue;
		diff.breaking.push(`${where}: parameter '${path}${old.name}'${shownFor(old)} is gone: workflows saved with it would lose its value`);
	}
	// Values each parameter had, to tell a parameter of a new operation from one added to an old one.
	const oldValues = new Map<string, unknown[]>();
	for (const old of before) oldValues.set(old.name, [...(oldValues.get(old.name) ?? []), ...(old.values ?? [])]);
	for (const now of after.filter((p) => !matched.has(p))) {
		const onlyForNewValues = Object.entries(now.show ?? {}).some(
			([name, values]) => oldValues.has(name) && values.every((value) => !oldValues.get(name)?.some((v) => same(v, value))),
		);
		if (now.required && isEmpty(now.default) && !onlyForNewValues) {
			diff.breaking.push(
				`${where}: required parameter '${path}${now.name}'${shownFor(now)} is new: workflows saved before it would fail to run without it`,
			);
		} else {
			diff.additions.push(`${where}: parameter '${path}${now.name}'${shownFor(now)}`);
		}
	}
}

function compareParameter(
	where: string,
	old: ParameterContract,
	now: ParameterContract,
	diff: ContractDiff,
	path: string,
	removed: RemovedValue[],
	version?: number,
): void {
	const name = `'${path}${old.name}'${shownFor(old)}`;
	if (old.type !== now.type) {
		diff.breaking.push(
			`${where}: parameter ${name} changed type from ${old.type} to ${now.type}: saved values would be read as ${now.type}`,
		);
	}
	if (!same(old.default, now.default)) {
		diff.breaking.push(
			`${where}: default of ${name} changed from ${JSON.stringify(old.default)} to ${JSON.stringify(now.default)}: ` +
				'workflows saved with the default (n8n does not store it) would run with the new one',
		);
	}
	if (now.required && !old.required) {
		diff.breaking.push(`${where}: parameter ${name} became required: workflows saved without it would fail to run`);
	}
	for (const value of old.values ?? []) {
		if (now.values?.some((v) => same(v, value))) continue;
		removed.push({ name: old.name, value, show: old.show });
		const of = old.show ? ` of ${describe(old.show)}` : '';
		diff.breaking.push(`${where}: workflows saved with ${path}${old.name} ${quote(value)}${of} would fail to load (the option is gone)`);
	}
	for (const value of now.values ?? []) {
		if (!old.values?.some((v) => same(v, value))) diff.additions.push(`${where}: option ${quote(value)} of ${name}`);
	}
	if (old.members || now.members) {
		// Members are shown where their collection is: messages name that place.
		const placed = (members: ParameterContract[] = []) => members.map((member) => ({ ...member, show: member.show ?? old.show }));
		compareParameters(where, placed(old.members), placed(now.members), diff, `${path}${old.name}.`, version);
	}
}

function compareN8n(saved: N8nContract, current: N8nContract, diff: ContractDiff): void {
	for (const [type, node] of Object.entries(saved.nodes)) {
		const now = current.nodes[type];
		if (!now) {
			diff.breaking.push(`n8n node type '${type}' is gone: workflows with it would fail to load`);
			continue;
		}
		const short = type.slice(type.lastIndexOf('.') + 1);
		for (const [version, parameters] of Object.entries(node.versions)) {
			if (!now.versions[version]) {
				diff.breaking.push(`${short} version ${version} is gone: workflows saved with it would fail to load`);
				continue;
			}
			compareParameters(`${short} v${version}`, parameters, now.versions[version], diff, '', Number(version));
		}
		for (const version of Object.keys(now.versions).filter((v) => !node.versions[v])) diff.additions.push(`${short} version ${version}`);
		for (const credential of node.credentials.filter((c) => !now.credentials.includes(c))) {
			diff.breaking.push(`${short} no longer uses credentials '${credential}': workflows holding them would fail to run`);
		}
	}
	for (const type of Object.keys(current.nodes).filter((t) => !saved.nodes[t])) diff.additions.push(`n8n node type '${type}'`);
	for (const [name, properties] of Object.entries(saved.credentials)) {
		if (!current.credentials[name]) {
			diff.breaking.push(`credential type '${name}' is gone: saved credentials and the workflows using them would fail`);
			continue;
		}
		compareParameters(`credential ${name}`, properties, current.credentials[name], diff);
	}
	for (const name of Object.keys(current.credentials).filter((n) => !saved.credentials[n]))
		diff.additions.push(`credential type '${name}'`);
}

function compareFields(
	type: string,
	id: string,
	before: Record<string, FieldContract>,
	after: Record<string, FieldContract>,
	diff: ContractDiff,
): void {
	for (const [name, old] of Object.entries(before)) {
		const now = after[name];
		const field = `field '${name}' of operation '${id}'`;
		if (!now) {
			diff.breaking.push(`${type}: ${field} is gone: flows saved with it would lose its value`);
			continue;
		}
		if (old.kind !== now.kind)
			diff.breaking.push(`${type}: ${field} changed kind from ${old.kind} to ${now.kind}: saved values may be refused`);
		if (!same(old.default, now.default)) {
			diff.breaking.push(`${type}: default of ${field} changed from ${JSON.stringify(old.default)} to ${JSON.stringify(now.default)}`);
		}
		if (now.required && !old.required) diff.breaking.push(`${type}: ${field} became required: flows saved without it would fail`);
		for (const value of (old.values ?? []).filter((v) => !now.values?.includes(v))) {
			diff.breaking.push(`${type}: flows saved with ${name} '${value}' in operation '${id}' would fail (the option is gone)`);
		}
	}
	for (const [name, now] of Object.entries(after).filter(([n]) => !before[n])) {
		if (now.required) diff.breaking.push(`${type}: required field '${name}' of operation '${id}' is new: flows saved before it would fail`);
		else diff.additions.push(`${type}: field '${name}' of operation '${id}'`);
	}
}

/**
 * Node-RED properties a flow cannot run without: the runtime refuses a node lacking them (no operation to run;
 * packages/node-red/test/action-node.test.ts), so their editor default is only what a new node starts with, and
 * changing it changes no saved or hand-written flow.
 */
const NEEDED_TO_RUN: Readonly<Record<string, readonly string[]>> = { 'chat-messaging': ['resource', 'operation'] };

function compareNodeRed(
	saved: Record<string, NodeRedTypeContract>,
	current: Record<string, NodeRedTypeContract>,
	diff: ContractDiff,
): void {
	for (const [type, before] of Object.entries(saved)) {
		const after = current[type];
		if (!after) {
			diff.breaking.push(`Node-RED node type '${type}' is gone: flows with it would not start (unknown type)`);
			continue;
		}
		for (const [name, value] of Object.entries(before.defaults)) {
			if (!(name in after.defaults)) diff.breaking.push(`${type}: property '${name}' is gone: flows saved with it would lose its value`);
			else if (!same(value, after.defaults[name]) && NEEDED_TO_RUN[type]?.includes(name)) {
				diff.additions.push(`${type}: new nodes start with ${name} ${JSON.stringify(after.defaults[name])} (a flow cannot run without it)`);
			} else if (!same(value, after.defaults[name])) {
				diff.breaking.push(
					`${type}: default of '${name}' changed from ${JSON.stringify(value)} to ${JSON.stringify(after.defaults[name])}: ` +
						'flows written without it (imported JSON) would run differently',
				);
			}
		}
		for (const name of Object.keys(after.defaults).filter((n) => !(n in before.defaults)))
			diff.additions.push(`${type}: property '${name}'`);
		for (const name of (before.credentials ?? []).filter((c) => !after.credentials?.includes(c))) {
			diff.breaking.push(`${type}: credential '${name}' is gone: deployed flows would lose it`);
		}
		for (const [name, values] of Object.entries(before.choices ?? {})) {
			for (const value of values.filter((v) => !after.choices?.[name]?.includes(v))) {
				diff.breaking.push(`${type}: flows saved with ${name} '${value}' would fail (the option is gone)`);
			}
		}
		for (const [id, fields] of Object.entries(before.operations ?? {})) {
			const [resource, operation] = id.split(':');
			const now = after.operations?.[id];
			if (!now)
				diff.breaking.push(`${type}: flows saved with operation '${operation}' of resource '${resource}' would fail (unknown operation)`);
			else compareFields(type, id, fields, now, diff);
		}
		for (const id of Object.keys(after.operations ?? {}).filter((i) => !before.operations?.[i]))
			diff.additions.push(`${type}: operation '${id}'`);
	}
	for (const type of Object.keys(current).filter((t) => !saved[t])) diff.additions.push(`Node-RED node type '${type}'`);
}

export function compareContracts(saved: UiContract, current: UiContract): ContractDiff {
	const diff: ContractDiff = { breaking: [], additions: [] };
	compareN8n(saved.n8n, current.n8n, diff);
	compareNodeRed(saved.nodeRed, current.nodeRed, diff);
	return diff;
}
