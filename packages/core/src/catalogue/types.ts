/**
 * The shape of the operation catalogue. One `OperationDescriptor` per endpoint (plus the friendly
 * operations mapped onto the same endpoints) is all a platform adapter needs: the n8n properties,
 * the Node-RED editor and the executor are all driven from these records.
 *
 * This module imports neither n8n nor Node-RED.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Resource keys, in the order the editors list them. */
export type ResourceKey =
	'chat' | 'label' | 'note' | 'message' | 'reaction' | 'file' | 'account' | 'workspace' | 'teammate' | 'invitation' | 'webhook';

/**
 * What a field holds; drives validation, coercion and the editor widget.
 * - `phone`: international format, optional `+`, digits only (the spec's `Invalid phone number format`).
 * - `phoneFilter`: the chat-list phone filter; digits with an optional `+` (leading zeroes allowed).
 * - `jid` / `wid`: `<id>@<server>`.
 * - `receiverUrl`: where the service posts events: a public HTTPS address (see `receiverUrlProblem`).
 * - `stringList`: an array of strings, or one comma-separated string.
 * - `binary`: bytes with a file name and MIME type (multipart upload).
 */
export type FieldKind =
	| 'string'
	| 'text'
	| 'integer'
	| 'boolean'
	| 'dateTime'
	| 'phone'
	| 'phoneFilter'
	| 'jid'
	| 'wid'
	| 'email'
	| 'url'
	| 'receiverUrl'
	| 'options'
	| 'stringList'
	| 'binary';

/** The kinds of record operations return; their simplified fields are in output.ts. */
export type RecordKind = 'chat' | 'message' | 'file' | 'account' | 'teammate';

/** Where a field travels in the HTTP request. */
export type FieldLocation = 'path' | 'query' | 'body' | 'multipart';

export interface FieldOption {
	value: string;
	name: string;
	description?: string;
}

export interface FieldDescriptor {
	/** Wire name (path placeholder, query parameter, body key or multipart part). */
	name: string;
	displayName: string;
	kind: FieldKind;
	in: FieldLocation;
	required?: boolean;
	/** Default shown in editors; not sent unless the user keeps or sets it (see `sendDefault`). */
	default?: string | number | boolean | string[];
	/** Send `default` when the user gives no value (e.g. a webhook is created enabled). */
	sendDefault?: boolean;
	/** Allowed values for `options` (matched case-insensitively, sent as listed here). */
	options?: readonly FieldOption[];
	/** The service itself takes the `options` values in any case (service notes: invitation roles); the API document says so. */
	serviceIgnoresCase?: boolean;
	/**
	 * What the service takes beyond the kind's rule (a reaction is one emoji): checked before sending, with
	 * `patternMessage` as the error, and stated in the API document.
	 */
	pattern?: RegExp;
	patternMessage?: string;
	/** An empty value is a value: `responsible: ""` unassigns, an empty label set clears the labels. */
	allowEmpty?: boolean;
	/** Replaces "is required" when the field is missing, to point at the right operation. */
	requiredMessage?: string;
	/** Inclusive bounds for `integer`. */
	min?: number;
	max?: number;
	/** Help text drawn from the spec. Query `stringList`s travel as the spec's comma lists. */
	description: string;
	placeholder?: string;
	/**
	 * A format rule worth showing beside the field before the user types (n8n's `hint`, Node-RED's
	 * help line): the validation error says the same thing only after a failed run.
	 */
	hint?: string;
	/** The list a user picks this field's value from (see lookups.ts); free entry stays possible. */
	picker?: LookupKey;
	/**
	 * A boolean filter offered as three choices: Any (no filter, value `TRI_STATE_ANY`), then the
	 * labels of `true` and `false` ("Closed" / "Open"). The field stays `boolean` on the wire and in
	 * saved v1 workflows; the executor reads `TRI_STATE_ANY` as "not given".
	 */
	triState?: TriStateLabels;
}

/** Labels of a tri-state filter's `true` and `false` choices; "Any" comes first and sends nothing. */
export interface TriStateLabels {
	true: string;
	false: string;
	/** Help for each choice; the field's description covers the whole. */
	trueDescription?: string;
	falseDescription?: string;
}

/**
 * Lists a user picks ids and values from in the editors: the keys of `LOOKUPS` in lookups.ts.
 * `invitation` lists teammates whose invitation is pending; `label` lists the labels chats carry.
 */
export type LookupKey = 'chat' | 'teammate' | 'account' | 'webhook' | 'file' | 'invitation' | 'label';

/**
 * How an operation may be retried without duplicating an effect.
 * - `read`: GET; always safe.
 * - `idempotent`: PUT, PATCH, DELETE and the label replace; repeating gives the same state.
 * - `create`: a POST that creates something (message, note, file, invitation, webhook, added label):
 *   retried only when the service cannot have acted on it (429, or the connection was refused before
 *   the request was written).
 */
export type Effect = 'read' | 'idempotent' | 'create';

export interface Pagination {
	/** Key of the item array inside `data` (`chats`, `messages`, `files`). */
	itemsKey: string;
	/** Query parameter carrying the 1-based page number. */
	pageParam: 'page';
	/**
	 * `resource:operation` that reads the record the list hangs under (`chat:get` for a chat's
	 * messages). A 404 on the first page may mean "no items" or "no such parent": the parent is asked
	 * so a wrong chat id fails loudly instead of reading as an empty history.
	 */
	parent?: string;
}

/**
 * Read-modify-write: read a value with another operation, combine it with the input, then send
 * this operation with the combined body. Used by "remove labels" (read the set, replace it).
 */
export interface ReadModifyWrite {
	/** `resource:operation` id of the read. */
	read: string;
	/** `resource:operation` id of the write that receives the combined input (or a choice by that input). */
	write: string | ((combined: Record<string, unknown>) => string);
	/**
	 * Builds this operation's input from the caller's input, the read's result and this operation's body as the
	 * executor validated it (each field coerced to what the wire takes, as the request itself would send it).
	 */
	combine: (input: Record<string, unknown>, current: unknown, body: Record<string, unknown>) => Record<string, unknown>;
}

export interface OperationDescriptor {
	resource: ResourceKey;
	/** Stable key within the resource (`getAll`, `close`, `add`, ...). */
	operation: string;
	/** Display name of the operation ("Close"). */
	name: string;
	/** One-line action text, as n8n shows it ("Close a chat"). */
	action: string;
	/** Help text drawn from the spec, in plain words (no HTTP verbs: users see it in the editors). */
	description: string;
	/** The wire facts behind a friendly operation ("PATCH closed: true"), for API docs, not for users. */
	wireNote?: string;
	method: HttpMethod;
	/** Path relative to the base URL, with `{placeholders}` for path fields. */
	path: string;
	/** Other methods the service answers the same way on this path (service notes: PATCH for the reaction PUT); documented, never sent. */
	methodAliases?: readonly HttpMethod[];
	fields: readonly FieldDescriptor[];
	/** Body members every call sends (friendly operations: `close` sends `{closed: true}`). */
	fixedBody?: Readonly<Record<string, unknown>>;
	effect: Effect;
	/** Member of `data` to return (`labels` → `data.labels`); omitted: `data` itself. */
	unwrap?: string;
	pagination?: Pagination;
	readModifyWrite?: ReadModifyWrite;
	/** Friendly operation mapped onto another endpoint's descriptor (documentation only). */
	friendlyOf?: string;
	/** Body must hold at least one of these fields (e.g. a message needs text or file_uid). */
	requireOneOf?: readonly string[];
	/**
	 * Deletes or overwrites what its path ids name (delete, replace, close, remove): adapters never
	 * fill those ids from incoming data implicitly, so a record piped in cannot aim it elsewhere.
	 */
	destructive?: boolean;
	/** An update: at least one of its body fields must be given (an empty PATCH would change nothing). */
	requiresChange?: boolean;
	/**
	 * A write that only adds (Add Labels keeps the chat's other labels): nothing there before is changed or
	 * lost. Creates (`effect: 'create'`) add by nature; every other write overwrites or removes. See `changeOf`.
	 */
	additive?: boolean;
	/**
	 * What it removes or overwrites no other operation can put back (a deleted file, a replaced label set, a
	 * subscription's old address): agents ask a person before running it. See `needsConfirmation`.
	 */
	irreversible?: boolean;
	/**
	 * Downloads the bytes the record links to: the record's `urlKey` holds a short-lived URL, and
	 * `filenameKey`/`mimeTypeKey` name and type them. The result is a `DownloadedFile`.
	 */
	download?: { urlKey: string; filenameKey: string; mimeTypeKey: string };
	/** Sends a message (used by adapters to offer attachments and wait-for-status). */
	sendsMessage?: boolean;
	/** The kind of record it returns (one, or a list): adapters offer the Output choice of output.ts for it. */
	returns?: RecordKind;
	/** What the service answers, where the spec or the service notes show it (an endpoint's own descriptor only). */
	answer?: AnswerDescriptor;
}

/** The records the spec and the service notes show (records.ts's RECORD_SCHEMAS), by the names the OpenAPI document gives them. */
export type AnswerRecord =
	'Chat' | 'Message' | 'StatusHistoryItem' | 'Reactions' | 'File' | 'Account' | 'Workspace' | 'Teammate' | 'Webhook' | 'SendAnswer';

/**
 * What `data` of an endpoint's success answer holds, where the spec or the service notes show it (the OpenAPI
 * document's response and the MCP tool's output schema are made from it, records.ts's `answerSchema`; an endpoint
 * without one reads "not shown by the spec"). A record by its name, or a JSON Schema of its own:
 * - `one`: one record (`required`: with members the record leaves optional but this answer always holds);
 * - `many`: an array of them; `paged`: a page of a list, the array under the pagination's `itemsKey` beside
 *   `has_more_pages`; `member`: the array under that member (`inMember`: only ever so; otherwise either way, as the
 *   service notes leave it open and the executor unwraps both).
 */
export type AnswerDescriptor =
	| { one: AnswerRecord | Readonly<Record<string, unknown>>; required?: readonly string[] }
	| { many: AnswerRecord | Readonly<Record<string, unknown>>; member?: string; paged?: boolean; inMember?: boolean };

export interface ResourceDescriptor {
	key: ResourceKey;
	name: string;
	description: string;
	/** The group of tools an agent turns on or off together (`chats`, `team`): several resources may share one. */
	toolset: string;
	/**
	 * Administers the workspace (where events go, who joins it): its writes are off for agents unless turned
	 * on, and always asked for confirmation.
	 */
	administrative?: boolean;
	operations: readonly OperationDescriptor[];
}

/** Bytes with their name, for multipart uploads. */
export interface BinaryInput {
	data: Uint8Array;
	filename: string;
	mimeType?: string;
}

/** The bytes behind a download link, with what is known about them. */
export interface DownloadedFile {
	data: Uint8Array;
	filename: string;
	mimeType: string;
	/** The record the link came from (File → Download), when there is one. */
	file?: Record<string, unknown>;
}

/** One HTTP request as the executor asks a transport to send it. */
export interface TransportRequest {
	method: HttpMethod;
	/** Absolute URL with the query string already applied. */
	url: string;
	headers: Record<string, string>;
	/** Serialized body (JSON text or multipart bytes); undefined for none. */
	body?: string | Uint8Array;
	timeoutMs: number;
	/** `bytes`: a 2xx body comes back as a Uint8Array, unparsed (downloads). Default `json`. */
	responseType?: 'json' | 'bytes';
	/**
	 * `false`: the transport must not add credentials. Set for URLs outside the service's origin
	 * (a signed download link may live on another host): the token never goes there.
	 */
	authenticate?: boolean;
}

export interface TransportResponse {
	status: number;
	headers: Record<string, string | string[] | undefined>;
	/** Parsed JSON when the response was JSON, otherwise the raw text; a Uint8Array for a 2xx `bytes` response. */
	body: unknown;
}

/**
 * Sends one request. Must resolve for every HTTP status (errors included) and reject only when no
 * response was received, with a `TransportFailure`-shaped error (see errors.ts) so the executor
 * knows whether the request may have reached the service.
 */
export type Transport = (request: TransportRequest) => Promise<TransportResponse>;

/** Injected time, so shared code holds no timers of its own (n8n forbids them in nodes). */
export interface Timing {
	sleep(ms: number): Promise<void>;
	now(): number;
	random(): number;
}
