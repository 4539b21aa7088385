/** Plain, JSON-serialisable records of one workspace. Field names are internal; `render.ts` maps them to the API. */

export type MessageStatus = 'queued' | 'sent' | 'delivered' | 'read' | 'failed';
export const EVENT_TYPES = ['message:received:new', 'message:sent:new', 'chat:created'] as const;
export type EventType = (typeof EVENT_TYPES)[number];
export const TEAM_ROLES = ['admin', 'team_supervisor', 'teammate', 'agent', 'collaborator'] as const;
export type TeamRole = (typeof TEAM_ROLES)[number];

export interface GroupMember {
	name: string;
	phone: string;
	role: string;
}

export interface ChatRecord {
	id: number;
	name: string;
	/** International format with `+`; null for groups, broadcast lists and channels. */
	phone: string | null;
	jid: string;
	isGroup: boolean;
	closed: boolean;
	read: boolean;
	labels: string[];
	aiAutoresponse: boolean;
	responsibleEmail: string | null;
	accountId: string;
	createdAt: number;
	lastMessageUid: string | null;
	lastMessageAt: number | null;
	unattended: boolean;
	groupMembers: GroupMember[] | null;
}

export interface ReactionRecord {
	name: string;
	phone: string;
	reaction: string;
	/** true for the workspace user the API acts as. */
	current: boolean;
}

export interface StatusEntry {
	status: MessageStatus;
	at: number;
}

export interface MessageRecord {
	uid: string;
	chatId: number;
	createdAt: number;
	fromMe: boolean;
	senderPhone: string | null;
	senderName: string | null;
	recipientPhone: string | null;
	recipientName: string | null;
	status: MessageStatus;
	history: StatusEntry[];
	origin: string;
	messageType: string;
	text: string | null;
	fileUid: string | null;
	attachmentFilename: string | null;
	replyTo: string | null;
	reactions: ReactionRecord[];
	/** Credits held by the message (restored when it fails). */
	credits: number;
}

export interface NoteRecord {
	id: number;
	chatId: number;
	text: string;
	authorEmail: string;
	createdAt: number;
}

export interface AccountRecord {
	id: string;
	phone: string;
	connectedOn: number;
	status: 'connected' | 'disconnected';
	ownerName: string;
	ownerEmail: string;
	accountName: string;
}

export interface TeammateRecord {
	userId: number;
	displayName: string;
	email: string;
	status: 'active' | 'invited';
	createdAt: number;
	role: TeamRole;
	teamTitle: string;
	accountIds: string[];
}

export interface FileRecord {
	uid: string;
	filename: string;
	size: number;
	mimetype: string;
	uploadedByEmail: string;
	uploadedAt: number;
	/** Bytes, base64 (kept in the record so the state file carries them). */
	data: string;
}

export interface WebhookRecord {
	id: number;
	eventType: EventType;
	url: string;
	enabled: boolean;
	errorsCounter: number;
	createdAt: number;
}

export interface DeliveryAttempt {
	delivery_id: string;
	webhook_id: number;
	event_type: EventType;
	url: string;
	attempt: number;
	ok: boolean;
	status_code?: number;
	error?: string;
	duplicate: boolean;
	at: string;
	body: unknown;
}

export interface WorkspaceData {
	token: string;
	number: number;
	/** Bumped by each reset so uids created after a reset never repeat earlier ones. */
	generation: number;
	workspaceId: string;
	displayName: string;
	plan: string;
	offsetMinutes: number;
	ownerEmail: string;
	counters: { chat: number; message: number; note: number; webhook: number; file: number; user: number; event: number };
	labels: string[];
	accounts: AccountRecord[];
	teammates: TeammateRecord[];
	chats: ChatRecord[];
	messages: MessageRecord[];
	notes: NoteRecord[];
	files: FileRecord[];
	webhooks: WebhookRecord[];
	quota: { total: number; used: number; periodStart: number; periodEnd: number };
	apiCalls: number;
	deliveries: DeliveryAttempt[];
	/** uids of messages waiting to be sent, in order. */
	queue: string[];
}

/** Ids of numeric resources are `workspace number × 1 000 000 + counter`, so they never collide between workspaces. */
export const ID_SPAN = 1_000_000;
