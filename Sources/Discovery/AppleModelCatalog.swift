import Foundation

/// Maps Apple model identifiers (the `model`/`am` TXT value) to product names.
public enum AppleModelCatalog {
    /// Known identifiers and their product names.
    public static let products: [String: String] = [
        "AppleTV2,1": "Apple TV (2nd gen)",
        "AppleTV3,1": "Apple TV (3rd gen)",
        "AppleTV3,2": "Apple TV (3rd gen)",
        "AppleTV5,3": "Apple TV HD",
        "AppleTV6,2": "Apple TV 4K (1st gen)",
        "AppleTV11,1": "Apple TV 4K (2nd gen)",
        "AppleTV14,1": "Apple TV 4K (3rd gen)",
        "AudioAccessory1,1": "HomePod",
        "AudioAccessory1,2": "HomePod",
        "AudioAccessory5,1": "HomePod mini",
        "AudioAccessorySingle5,1": "HomePod mini",
        "AudioAccessory6,1": "HomePod (2nd gen)",
        "AirPort4,107": "AirPort Express",
        "AirPort10,115": "AirPort Express",
    ]

    /// Product name of a Mac acting as an AirPlay receiver.
    public static let macProduct = "Mac"

    /// Prefixes of Mac identifiers (`MacBookPro18,3`, `iMac21,1`, `Mac14,2`, `Macmini9,1`).
    static let macPrefixes = ["MacBookAir", "MacBookPro", "MacBook", "Macmini", "MacPro", "iMacPro", "iMac", "Mac"]

    /// The product name for `model`, or nil when the identifier is not a known Apple one.
    public static func productName(forModel model: String) -> String? {
        let trimmed = model.trimmingCharacters(in: .whitespaces)
        if let product = products[trimmed] { return product }
        return isMac(trimmed) ? macProduct : nil
    }

    /// True for `<Mac prefix><major>,<minor>` identifiers.
    public static func isMac(_ model: String) -> Bool {
        guard let prefix = macPrefixes.first(where: model.hasPrefix) else { return false }
        let numbers = model.dropFirst(prefix.count).split(separator: ",", omittingEmptySubsequences: false)
        return numbers.count == 2 && numbers.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }
    }

    /// True when `model` names an Apple device (catalog entry, Mac, or an Apple identifier family).
    public static func isAppleModel(_ model: String) -> Bool {
        productName(forModel: model) != nil
            || ["AppleTV", "AudioAccessory", "AirPort"].contains { model.hasPrefix($0) }
    }
}
