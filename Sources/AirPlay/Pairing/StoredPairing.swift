import Foundation

/// Which pairing a stored entry holds. Written in every entry (`kind`) since schemaVersion 2,
/// never guessed from which fields are empty; a version 1 file held HAP entries only.
public enum PairingKind: String, Sendable, Codable, CaseIterable {
    /// HAP pair-setup with a code (AirPlay 2: Apple TVs, AirPlay 2 TVs).
    case hap
    /// Legacy pairing with a code (`/pair-setup-pin`: UxPlay `-pin`, Apple TV 3 with a code).
    case legacyPin = "legacy-pin"
    /// Legacy pairing without a code (`/pair-setup` with our key): the receiver's key is pinned.
    case legacy
}

/// The keys of one stored pairing, of either kind.
public enum StoredCredentials: Sendable, Equatable {
    case hap(HAPCredentials)
    case legacy(LegacyCredentials)

    public var kind: PairingKind {
        switch self {
        case .hap: .hap
        case .legacy(let credentials): credentials.method == .pin ? .legacyPin : .legacy
        }
    }

    public var hap: HAPCredentials? { if case .hap(let credentials) = self { credentials } else { nil } }
    public var legacy: LegacyCredentials? { if case .legacy(let credentials) = self { credentials } else { nil } }

    /// Nil when usable, else what is wrong.
    public var problem: String? {
        switch self {
        case .hap(let credentials): credentials.problem
        case .legacy(let credentials): credentials.problem
        }
    }

    /// This machine's identifier in the pairing.
    public var controllerId: String {
        switch self {
        case .hap(let credentials): credentials.controllerId
        case .legacy(let credentials): credentials.controllerId
        }
    }

    /// The receiver's side: its HAP pairing identifier, or a legacy receiver's key fingerprint.
    public var receiverId: String {
        switch self {
        case .hap(let credentials): credentials.accessoryId
        case .legacy(let credentials): "key " + credentials.receiverKeyFingerprint
        }
    }
}

/// One stored pairing: which receiver, the kind, and its credentials.
public struct StoredPairing: Sendable, Equatable, Codable {
    /// The name `airplay pair` was given or discovery reported.
    public var receiver: String
    public var deviceId: String?
    /// HOST:PORT it was paired at.
    public var address: String
    public var pairedAt: Date
    public var credentials: StoredCredentials

    public var kind: PairingKind { credentials.kind }

    public init(receiver: String, deviceId: String?, address: String, pairedAt: Date, credentials: StoredCredentials) {
        self.receiver = receiver
        self.deviceId = deviceId
        self.address = address
        self.pairedAt = pairedAt
        self.credentials = credentials
    }

    public init(receiver: String, deviceId: String?, address: String, pairedAt: Date, credentials: HAPCredentials) {
        self.init(receiver: receiver, deviceId: deviceId, address: address, pairedAt: pairedAt, credentials: .hap(credentials))
    }

    /// Whether `text` names this pairing: its receiver name, device id, address, or the
    /// receiver's HAP pairing identifier (case-insensitive).
    public func matches(_ text: String) -> Bool {
        let wanted = text.lowercased()
        return [receiver, deviceId, address, credentials.hap?.accessoryId].compactMap { $0?.lowercased() }.contains(wanted)
    }

    private enum CodingKeys: String, CodingKey { case kind, receiver, deviceId, address, pairedAt, credentials }

    /// The keys a legacy entry's `credentials` holds (its method is the entry's `kind`).
    private struct LegacyKeys: Codable {
        var controllerId: String
        var controllerPrivateKey: Data
        var receiverPublicKey: Data
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encode(receiver, forKey: .receiver)
        try container.encodeIfPresent(deviceId, forKey: .deviceId)
        try container.encode(address, forKey: .address)
        try container.encode(pairedAt, forKey: .pairedAt)
        switch credentials {
        case .hap(let keys): try container.encode(keys, forKey: .credentials)
        case .legacy(let keys):
            try container.encode(LegacyKeys(controllerId: keys.controllerId, controllerPrivateKey: keys.controllerPrivateKey,
                                             receiverPublicKey: keys.receiverPublicKey), forKey: .credentials)
        }
    }

    /// `decoder.userInfo[.credentialsSchemaVersion]` says the file's version: in version 1 an
    /// entry without `kind` is HAP (the only kind then); from version 2 `kind` is required.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let version = decoder.userInfo[.credentialsSchemaVersion] as? Int ?? CredentialStore.schemaVersion
        let kind: PairingKind
        if let stated = try container.decodeIfPresent(String.self, forKey: .kind) {
            guard let known = PairingKind(rawValue: stated) else {
                throw DecodingError.dataCorruptedError(forKey: .kind, in: container,
                                                       debugDescription: "unknown kind '\(stated.prefix(40))' (known: hap, legacy-pin, legacy)")
            }
            kind = known
        } else if version == 1 {
            kind = .hap
        } else {
            throw DecodingError.keyNotFound(CodingKeys.kind, .init(codingPath: container.codingPath, debugDescription: "no kind"))
        }
        receiver = try container.decode(String.self, forKey: .receiver)
        deviceId = try container.decodeIfPresent(String.self, forKey: .deviceId)
        address = try container.decode(String.self, forKey: .address)
        pairedAt = try container.decode(Date.self, forKey: .pairedAt)
        switch kind {
        case .hap: credentials = .hap(try container.decode(HAPCredentials.self, forKey: .credentials))
        case .legacyPin, .legacy:
            let keys = try container.decode(LegacyKeys.self, forKey: .credentials)
            credentials = .legacy(LegacyCredentials(method: kind == .legacyPin ? .pin : .key, controllerId: keys.controllerId,
                                                    controllerPrivateKey: keys.controllerPrivateKey, receiverPublicKey: keys.receiverPublicKey))
        }
    }
}

extension CodingUserInfoKey {
    /// The credentials file's `schemaVersion` while its entries are decoded.
    public static let credentialsSchemaVersion = CodingUserInfoKey(rawValue: "seamcheck.credentialsSchemaVersion")!
}
