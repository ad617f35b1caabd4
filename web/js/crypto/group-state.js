/**
 * One version of a group (SECURITY.md, "Group state and its hash"): its id, name, avatar and members, chained to the
 * previous version by hash. `stateBytes` is the canonical form, `stateHash()` its labelled SHA-256, `toJSON` the form
 * a `group_update` carries. Names follow WotsCore's `GroupID`, `GroupMember` and `GroupState`.
 *
 * Versions and `joinedAt` are JavaScript numbers: they are JSON numbers on the wire, and a value above 2^53 − 1
 * (which JSON could not carry exactly) is refused as malformed.
 */

import { ByteWriter, compareBytes, concatBytes, fromHex, label, randomBytes, toHex, utf8 } from './bytes.js';
import { DomainError, DomainErrorCode } from './errors.js';
import { Fingerprint } from './fingerprint.js';
import { sha256 } from './sha.js';
import { Token } from './token.js';

/** A group's identity: 16 random bytes the creator drew, spelled as 32 lowercase hex digits. */
export class GroupID {
    static byteCount = 16;

    /** @throws {DomainError} `malformed` unless exactly 16 bytes */
    constructor(bytes) {
        if (!(bytes instanceof Uint8Array) || bytes.length !== GroupID.byteCount) {
            throw malformed(`a group id is 16 bytes, got ${bytes?.length}`);
        }
        this.bytes = Uint8Array.from(bytes);
    }

    /** @throws {DomainError} `malformed` unless 32 hex digits */
    static fromHex(text) {
        const bytes = typeof text === 'string' && text.length === 32 ? fromHex(text) : null;
        if (bytes === null) throw malformed(`group id "${String(text).slice(0, 40)}" is not 32 hex digits`);
        return new GroupID(bytes);
    }

    static random() {
        return new GroupID(randomBytes(GroupID.byteCount));
    }

    get hex() {
        return toHex(this.bytes);
    }

    equals(other) {
        return other instanceof GroupID && compareBytes(this.bytes, other.bytes) === 0;
    }

    toString() {
        return this.hex;
    }

    toJSON() {
        return this.hex;
    }
}

/** A member as a group state records it: token, the key fingerprint the group saw, role, and the version it joined. */
export class GroupMember {
    /** 16 + 32 + 1 + 8. */
    static encodedSize = 57;

    /**
     * @param {{token: Token, fingerprint: Fingerprint, isAdmin?: boolean, joinedAt: number}} fields
     * @throws {DomainError} `malformed` for a field of the wrong kind
     */
    constructor({ token, fingerprint, isAdmin = false, joinedAt }) {
        if (!(token instanceof Token) || !(fingerprint instanceof Fingerprint)) {
            throw malformed('a group member needs a token and a fingerprint');
        }
        if (typeof isAdmin !== 'boolean') throw malformed('a group member\'s admin flag must be true or false');
        this.token = token;
        this.fingerprint = fingerprint;
        this.isAdmin = isAdmin;
        this.joinedAt = checkedVersion(joinedAt, 'joinedAt', 0);
    }

    /** The same member with another role. */
    withAdmin(isAdmin) {
        return new GroupMember({ ...this, isAdmin });
    }

    equals(other) {
        return this.token.equals(other.token) && this.fingerprint.equals(other.fingerprint)
            && this.isAdmin === other.isAdmin && this.joinedAt === other.joinedAt;
    }

    toJSON() {
        const { token, fingerprint, isAdmin, joinedAt } = this;
        return { token: String(token), fingerprint: fingerprint.hex, admin: isAdmin, joinedAt };
    }

    /** @throws {DomainError} `malformed`, `invalidToken` or `invalidFingerprint` */
    static fromJSON(json) {
        if (json === null || typeof json !== 'object') throw malformed('a group member is not a JSON object');
        const fingerprint = typeof json.fingerprint === 'string' && /^[0-9a-fA-F]{64}$/.test(json.fingerprint)
            ? Fingerprint.fromHex(json.fingerprint) : null;
        if (fingerprint === null) throw malformed('a group member\'s fingerprint is not 64 hex digits');
        return new GroupMember({
            token: Token.parse(json.token), fingerprint, isAdmin: json.admin, joinedAt: json.joinedAt,
        });
    }
}

/** The twelve avatar presets (openapi.yaml `Avatar.preset`), the only group avatars there are (kind 1). */
export const groupAvatarPresets = Object.freeze(['mouse', 'ox', 'tiger', 'rabbit', 'dragon', 'snake', 'horse', 'ram',
    'monkey', 'rooster', 'dog', 'pig']);

export class GroupState {
    /** Domain-separation label of the state hash (the zero byte included). */
    static hashLabel = label('wots-group-state-v1');
    static maximumMembers = 256;
    static maximumNameBytes = 100;
    /** The previous hash of a version 1 state. */
    static noPreviousState = new Uint8Array(32);

    /**
     * @param {{id: GroupID, version: number, previous: Uint8Array, name: string, avatar?: string | null,
     *   members: GroupMember[]}} fields members in any order: they are sorted by token bytes here
     */
    constructor({ id, version, previous, name, avatar = null, members }) {
        if (!(id instanceof GroupID)) throw malformed('a group state needs a group id');
        if (!(previous instanceof Uint8Array)) throw malformed('a group state needs a previous hash');
        if (typeof name !== 'string') throw malformed('a group name must be a string');
        if (!Array.isArray(members) || !members.every((member) => member instanceof GroupMember)) {
            throw malformed('a group state needs a list of members');
        }
        this.id = id;
        this.version = checkedVersion(version, 'version', 0);
        this.previous = Uint8Array.from(previous);
        this.name = name;
        this.avatar = avatar ?? null;
        this.members = [...members].sort((a, b) => compareBytes(a.token.bytes, b.token.bytes));
    }

    member(token) {
        return this.members.find((member) => member.token.equals(token)) ?? null;
    }

    isAdmin(token) {
        return this.member(token)?.isAdmin ?? false;
    }

    get tokens() {
        return this.members.map((member) => member.token);
    }

    /**
     * Checks the rules every state obeys: version ≥ 1 with an all-zero previous hash exactly at version 1, a name of
     * 1–100 UTF-8 bytes without control characters, a preset avatar or none, 1–256 members sorted without
     * duplicates, at least one admin, every `joinedAt` in 1…version.
     * @throws {DomainError} `malformed` naming the rule
     */
    validate() {
        const firstVersion = this.version === 1;
        const noPrevious = compareBytes(this.previous, GroupState.noPreviousState) === 0;
        if (this.version < 1 || this.previous.length !== 32 || firstVersion !== noPrevious) {
            throw malformed(`group state version ${this.version} has a wrong previous-state hash`);
        }
        const nameBytes = utf8(this.name).length;
        if (nameBytes < 1 || nameBytes > GroupState.maximumNameBytes || /\p{Cc}/u.test(this.name)) {
            throw malformed(`group name is ${nameBytes} bytes or has control characters (1–100 bytes)`);
        }
        if (this.avatar !== null && !groupAvatarPresets.includes(this.avatar)) {
            throw malformed(`group avatar "${String(this.avatar).slice(0, 20)}" is not one of the presets`);
        }
        const count = this.members.length;
        if (count < 1 || count > GroupState.maximumMembers) {
            throw malformed(`group has ${count} members (1–${GroupState.maximumMembers})`);
        }
        for (let i = 1; i < count; i++) {
            if (compareBytes(this.members[i - 1].token.bytes, this.members[i].token.bytes) >= 0) {
                throw malformed(`group members must be sorted without duplicates (${this.members[i].token})`);
            }
        }
        if (!this.members.some((member) => member.isAdmin)) {
            throw malformed(`group state version ${this.version} has no admin`);
        }
        if (!this.members.every((member) => member.joinedAt >= 1 && member.joinedAt <= this.version)) {
            throw malformed(`a member of group state ${this.version} joined at a later or zero version`);
        }
    }

    /** The canonical bytes the state hash covers, without the label (SECURITY.md's order). */
    get stateBytes() {
        const writer = new ByteWriter()
            .write(this.id.bytes)
            .writeU64(BigInt(this.version))
            .write(this.previous)
            .writeU16Prefixed(utf8(this.name));
        if (this.avatar === null) {
            writer.writeU8(0);
        } else {
            const preset = utf8(this.avatar);
            writer.writeU8(1).writeU8(preset.length).write(preset);
        }
        writer.writeU16(this.members.length);
        for (const member of this.members) {
            writer.write(member.token.bytes).write(member.fingerprint.bytes).writeU8(member.isAdmin ? 1 : 0)
                .writeU64(BigInt(member.joinedAt));
        }
        return writer.bytes;
    }

    /** SHA-256("wots-group-state-v1" || 0x00 || stateBytes): what the next state's `previous` and every group
     *  envelope's membership state hash name. @returns {Promise<Uint8Array>} */
    stateHash() {
        return sha256(concatBytes(GroupState.hashLabel, this.stateBytes));
    }

    /** The JSON a `group_update` carries: `{id, version, previous, name, avatar?, members}`. */
    toJSON() {
        const json = { id: this.id.hex, version: this.version, previous: toHex(this.previous), name: this.name };
        if (this.avatar !== null) json.avatar = { preset: this.avatar };
        json.members = this.members.map((member) => member.toJSON());
        return json;
    }

    /**
     * Reads the JSON form; checks its spelling only (`validate` checks the rules).
     * @throws {DomainError} `malformed`, `invalidToken` or `invalidFingerprint`
     */
    static fromJSON(json) {
        if (json === null || typeof json !== 'object' || Array.isArray(json)) {
            throw malformed('a group state is not a JSON object');
        }
        const previous = typeof json.previous === 'string' && json.previous.length === 64
            ? fromHex(json.previous) : null;
        if (previous === null) {
            throw malformed(`group state previous hash "${String(json.previous).slice(0, 80)}" is not 64 hex digits`);
        }
        if (json.avatar !== undefined && json.avatar !== null
            && (typeof json.avatar !== 'object' || typeof json.avatar.preset !== 'string')) {
            throw malformed('a group avatar is {"preset": NAME}');
        }
        if (!Array.isArray(json.members)) throw malformed('a group state needs a members array');
        return new GroupState({
            id: GroupID.fromHex(json.id),
            version: json.version,
            previous,
            name: json.name,
            avatar: json.avatar?.preset ?? null,
            members: json.members.map((member) => GroupMember.fromJSON(member)),
        });
    }
}

/** A version or `joinedAt`: an integer from `minimum` to 2^53 − 1. */
function checkedVersion(value, what, minimum) {
    if (!Number.isSafeInteger(value) || value < minimum) {
        throw malformed(`group ${what} ${String(value).slice(0, 30)} is not an integer from ${minimum} to 2^53 − 1`);
    }
    return value;
}

function malformed(reason) {
    return new DomainError(DomainErrorCode.malformed, reason);
}
