import { cycle, lastOf } from './lists';
import { Random, hashSeed, hexId } from './random';
import type { AccountRecord, ChatRecord, GroupMember, MessageRecord, StatusEntry, TeamRole, TeammateRecord, WorkspaceData } from './model';
import { ID_SPAN } from './model';

/** Generates the seeded start of a workspace: accounts, teammates, labels and realistic chats with history. */

const FIRST_NAMES = [
	'Anna',
	'Ben',
	'Carla',
	'David',
	'Elena',
	'Farid',
	'Greta',
	'Hugo',
	'Ines',
	'Jonas',
	'Kira',
	'Luca',
	'Maya',
	'Nico',
	'Olga',
	'Pablo',
	'Quinn',
	'Rosa',
	'Sami',
	'Tara',
	'Umar',
	'Vera',
	'Will',
	'Xenia',
	'Yusuf',
	'Zoe',
	'Amir',
	'Bianca',
	'Chen',
	'Dara',
	'Emil',
	'Fatima',
	'Goran',
	'Hana',
	'Ivan',
	'Julia',
	'Karim',
	'Lena',
	'Marco',
	'Nora',
];
const LAST_NAMES = [
	'Schmidt',
	'Garcia',
	'Rossi',
	'Dubois',
	'Novak',
	'Silva',
	'Jansen',
	'Kowalski',
	'Meyer',
	'Haddad',
	'Olsen',
	'Costa',
	'Weber',
	'Moreau',
	'Ivanova',
	'Lopez',
	'Bauer',
	'Ricci',
	'Nguyen',
	'Sato',
	'Kaya',
	'Fischer',
];
const COMPANIES = [
	'Northwind Bikes',
	'Blue Harbor Dental',
	'Atlas Movers',
	'Green Leaf Catering',
	'Pixel Print Shop',
	'Sunrise Language School',
	'Maple Realty',
	'Orbit Fitness',
];
const GROUP_TOPICS = [
	'Weekend delivery team',
	'Spring campaign',
	'Warehouse shift',
	'Partner onboarding',
	'Customer advisory board',
	'Event volunteers',
	'Beta testers',
	'Regional sales',
	'Kitchen crew',
	'Book club',
];
const LABELS = ['VIP', 'New lead', 'Support', 'Billing', 'Follow-up', 'Partner', 'Complaint'];
const COUNTRY_CODES = ['49', '44', '34', '33', '39', '31', '55', '1', '351', '48'];
const INBOUND_TEXTS = [
	'Hi! Is the offer from last week still valid?',
	'Can you send me the invoice again please?',
	'Thanks, that works for me 👍',
	'When will my order arrive?',
	'Do you have an appointment tomorrow morning?',
	'I tried to pay but the link does not work',
	'Great, see you then!',
	'Could someone call me back?',
	'Is it possible to change the delivery address?',
	'Hello 👋 quick question about pricing',
];
const OUTBOUND_TEXTS = [
	'Hello! Thanks for reaching out, how can we help?',
	'Sure, I just sent it to your email.',
	'Your order ships today and should arrive within 2 days.',
	'Yes, 9:30 works. See you tomorrow!',
	'Here is the new payment link.',
	'We will call you back within the hour.',
	'Done ✅ the address is updated.',
	'Our prices start at 49 EUR per month.\nLet me know if you want a quote.',
];
const REACTIONS = ['👍', '❤️', '😂', '🙏', '🎉'];

export interface SeedParams {
	token: string;
	number: number;
	seed: number;
	chats: number;
	accounts: number;
	quota: number;
	seedTime: number;
	offsetMinutes: number;
}

const DAY = 86_400_000;

export function generateWorkspace(params: SeedParams): WorkspaceData {
	const rng = new Random(hashSeed(`${params.seed}:workspace:${params.number}`));
	const base = params.number * ID_SPAN;
	const now = params.seedTime;
	const company = cycle(COMPANIES, params.number - 1, 'COMPANIES');
	const domain = `${company.toLowerCase().replace(/[^a-z]+/g, '')}.example`;
	const counters = { chat: 0, message: 0, note: 0, webhook: 0, file: 0, user: 0, event: 0 };

	const usedPhones = new Set<string>();
	const newPhone = (): string => {
		for (;;) {
			const code = rng.pick(COUNTRY_CODES);
			const phone = `+${code}${rng.digits(12 - code.length)}`;
			if (!usedPhones.has(phone)) {
				usedPhones.add(phone);
				return phone;
			}
		}
	};

	// Teammates: the owner (admin) plus a few colleagues with distinct roles.
	const teammates: TeammateRecord[] = [];
	const roles: TeamRole[] = ['admin', 'team_supervisor', 'teammate', 'agent'];
	const teamSize = rng.int(3, 4);
	for (let i = 0; i < teamSize; i += 1) {
		const first = cycle(FIRST_NAMES, i * 7 + params.number * 3, 'FIRST_NAMES');
		const last = rng.pick(LAST_NAMES);
		counters.user += 1;
		teammates.push({
			userId: base + counters.user,
			displayName: `${first} ${last}`,
			email: `${first}.${last}@${domain}`.toLowerCase(),
			status: 'active',
			createdAt: now - rng.int(200, 700) * DAY,
			role: roles[i] ?? 'teammate',
			teamTitle: 'Default team',
			accountIds: [],
		});
	}
	const [owner] = teammates;
	if (!owner) throw new Error('sandbox invariant: a seeded workspace has at least one teammate');

	const accountCount = params.accounts > 0 ? Math.min(params.accounts, 2) : rng.chance(0.5) ? 2 : 1;
	const accounts: AccountRecord[] = [];
	for (let i = 0; i < accountCount; i += 1) {
		const phone = newPhone();
		accounts.push({
			id: `${phone.slice(1)}@c.us`,
			phone,
			connectedOn: now - (accountCount - i) * rng.int(20, 90) * DAY,
			status: 'connected',
			ownerName: owner.displayName,
			ownerEmail: owner.email,
			accountName: i === 0 ? `${company} Sales` : `${company} Support`,
		});
	}
	for (const mate of teammates) mate.accountIds = accounts.map((a) => a.id);

	const chats: ChatRecord[] = [];
	const messages: MessageRecord[] = [];
	const usedNames = new Set<string>();
	const uniqueName = (name: string): string => {
		let candidate = name;
		for (let n = 2; usedNames.has(candidate.toLowerCase()); n += 1) candidate = `${name} (${n})`;
		usedNames.add(candidate.toLowerCase());
		return candidate;
	};
	const directContacts: { name: string; phone: string; chatId: number }[] = [];

	const makeChat = (kind: 'direct' | 'group' | 'broadcast' | 'newsletter', index: number): ChatRecord => {
		counters.chat += 1;
		const id = base + counters.chat;
		const account = cycle(accounts, index, 'accounts');
		const createdAt = now - rng.int(2, 120) * DAY - rng.int(0, DAY / 1000) * 1000;
		const chat: ChatRecord = {
			id,
			name: '',
			phone: null,
			jid: '',
			isGroup: false,
			closed: rng.chance(0.15),
			read: rng.chance(0.6),
			labels: [],
			aiAutoresponse: rng.chance(0.25),
			responsibleEmail: null,
			accountId: account.id,
			createdAt,
			lastMessageUid: null,
			lastMessageAt: null,
			unattended: false,
			groupMembers: null,
		};
		if (rng.chance(0.45)) chat.labels = [...new Set([rng.pick(LABELS), ...(rng.chance(0.3) ? [rng.pick(LABELS)] : [])])];
		if (rng.chance(0.4)) chat.responsibleEmail = rng.pick(teammates).email;
		if (kind === 'direct') {
			chat.phone = newPhone();
			chat.jid = `${chat.phone.slice(1)}@c.us`;
			chat.name = uniqueName(`${rng.pick(FIRST_NAMES)} ${rng.pick(LAST_NAMES)}`);
			directContacts.push({ name: chat.name, phone: chat.phone, chatId: id });
		} else if (kind === 'group') {
			chat.isGroup = true;
			chat.jid = `120363${rng.digits(12)}@g.us`;
			chat.name = uniqueName(rng.pick(GROUP_TOPICS));
			const members: GroupMember[] = [{ name: account.accountName, phone: account.phone, role: 'superadmin' }];
			const size = rng.int(2, 6);
			for (let m = 0; m < size; m += 1) {
				const known = directContacts.length > 0 && rng.chance(0.6) ? rng.pick(directContacts) : null;
				const member = known
					? { name: known.name, phone: known.phone }
					: { name: `${rng.pick(FIRST_NAMES)} ${rng.pick(LAST_NAMES)}`, phone: newPhone() };
				if (!members.some((x) => x.phone === member.phone)) {
					members.push({ ...member, role: rng.chance(0.2) ? 'admin' : 'member' });
				}
			}
			chat.groupMembers = members;
		} else if (kind === 'broadcast') {
			chat.jid = `${Math.floor(createdAt / 1000)}@broadcast`;
			chat.name = uniqueName('Broadcast: monthly newsletter');
		} else {
			chat.jid = `120363${rng.digits(12)}@newsletter`;
			chat.name = uniqueName(`${company} channel`);
		}

		// History: a few messages between creation and the seed time, alternating sides at random.
		const count = kind === 'broadcast' || kind === 'newsletter' ? rng.int(1, 2) : rng.int(1, 8);
		let at = createdAt + rng.int(1, 60) * 60_000;
		const span = Math.max(60_000, now - at);
		let lastFromMe = true;
		for (let m = 0; m < count; m += 1) {
			const fromMe = kind === 'broadcast' || kind === 'newsletter' ? true : m === 0 ? false : rng.chance(0.5);
			lastFromMe = fromMe;
			counters.message += 1;
			const uid = hexId(`${params.seed}:${params.number}:seed:message:${counters.message}`, 20);
			const sender = chat.groupMembers && !fromMe ? rng.pick(chat.groupMembers.slice(1)) : null;
			const history: [StatusEntry, ...StatusEntry[]] = fromMe
				? [
						{ status: 'queued', at },
						{ status: 'sent', at: at + 2_000 },
						{ status: 'delivered', at: at + 5_000 },
						...(rng.chance(0.8) ? [{ status: 'read' as const, at: at + rng.int(1, 600) * 10_000 }] : []),
					]
				: [{ status: 'delivered', at }];
			const message: MessageRecord = {
				uid,
				chatId: id,
				createdAt: at,
				fromMe,
				senderPhone: fromMe ? account.phone : (sender?.phone ?? chat.phone),
				senderName: fromMe ? rng.pick(teammates).displayName : (sender?.name ?? chat.name),
				recipientPhone: fromMe ? chat.phone : account.phone,
				recipientName: fromMe ? chat.name : account.accountName,
				status: lastOf(history).status,
				history,
				origin: fromMe ? 'Web app' : 'Chat app',
				messageType: 'text',
				text: fromMe ? rng.pick(OUTBOUND_TEXTS) : rng.pick(INBOUND_TEXTS),
				fileUid: null,
				attachmentFilename: null,
				replyTo: null,
				reactions: [],
				credits: 0,
			};
			if (!fromMe && rng.chance(0.15)) {
				message.reactions.push({ name: owner.displayName, phone: account.phone, reaction: rng.pick(REACTIONS), current: true });
			}
			messages.push(message);
			chat.lastMessageAt = at;
			chat.lastMessageUid = uid;
			at += Math.max(30_000, Math.floor((span / (count + 1)) * rng.next()));
			if (at > now) at = now - (count - m) * 1000;
		}
		// An inbound message left unanswered flags the chat unattended and unread.
		if (!lastFromMe && !chat.closed && rng.chance(0.6)) {
			chat.unattended = true;
			chat.read = false;
		}
		return chat;
	};

	for (let i = 0; i < params.chats; i += 1) {
		let kind: 'direct' | 'group' | 'broadcast' | 'newsletter' = rng.chance(0.2) && i > 2 ? 'group' : 'direct';
		if (params.chats >= 10 && i === 7) kind = 'broadcast';
		if (params.chats >= 10 && i === 9) kind = 'newsletter';
		chats.push(makeChat(kind, i));
	}

	const monthStart = new Date(now);
	const periodStart = Date.UTC(monthStart.getUTCFullYear(), monthStart.getUTCMonth(), 1);
	const periodEnd = Date.UTC(monthStart.getUTCFullYear(), monthStart.getUTCMonth() + 1, 1) - 1000;

	return {
		token: params.token,
		number: params.number,
		generation: 0,
		workspaceId: `ws_${hexId(`${params.seed}:ws:${params.number}`, 10).toLowerCase()}`,
		displayName: company,
		plan: 'Pro',
		offsetMinutes: params.offsetMinutes,
		ownerEmail: owner.email,
		counters,
		labels: [...LABELS],
		accounts,
		teammates,
		chats,
		messages,
		notes: [],
		files: [],
		webhooks: [],
		quota: { total: params.quota, used: 0, periodStart, periodEnd },
		apiCalls: 0,
		deliveries: [],
		queue: [],
	};
}
