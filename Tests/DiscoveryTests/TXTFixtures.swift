import Discovery

/// `_airplay._tcp` TXT records seen on real devices (reference/airplay-discovery.md).
enum TXTFixtures {
    static let appleTV4K: TXTRecord = [
        "deviceid": "90:DD:5D:98:F0:0A", "features": "0x4A7FFFF7,0x4155FDE", "flags": "0x10644",
        "model": "AppleTV6,2", "protovers": "1.1", "srcvers": "380.20.1", "osvers": "12.2.1", "vv": "2", "acl": "0",
    ]
    static let appleTVHD: TXTRecord = [
        "model": "AppleTV5,3", "osvers": "14.2", "srcvers": "525.38.42", "flags": "0x244",
        "features": "0x5A7FDFD5,0x3C155FDE",
    ]
    static let homePod: TXTRecord = [
        "model": "AudioAccessory1,1", "osvers": "14.3", "srcvers": "530.6", "flags": "0x1a404",
        "features": "0x4A7FCA00,0x3C356BD0",
    ]
    static let roku: TXTRecord = [
        "manufacturer": "Roku", "model": "3810X", "srcvers": "377.28.01", "flags": "0x644", "rsf": "0x3",
        "features": "0x7F8AD0,0x10BCF46",
    ]
    static let samsung: TXTRecord = [
        "manufacturer": "Samsung", "model": "UNU7090", "srcvers": "377.17.24.6", "rsf": "0x3",
        "features": "0x7F8AD0,0x38BCB46",
    ]
    static let lg: TXTRecord = [
        "manufacturer": "LG", "integrator": "LG Electronics", "model": "55UQ80006LD", "srcvers": "377.40.00",
        "rsf": "0x3", "features": "0x7F8AD0,0x38BCF46", "flags": "0x244",
    ]
    static let sonos: TXTRecord = [
        "manufacturer": "Sonos", "model": "Bookshelf", "srcvers": "366.0", "flags": "0x4", "rsf": "0x0",
        "features": "0x445F8A00,0x1C340",
    ]
    static let shairport: TXTRecord = [
        "model": "ShairportSync", "srcvers": "366.0", "osvers": "15.0", "features": "0x405C4A00,0x18340",
    ]

    static let all: [(name: String, txt: TXTRecord)] = [
        ("Apple TV 4K", appleTV4K), ("Apple TV HD", appleTVHD), ("HomePod", homePod), ("Roku", roku),
        ("Samsung", samsung), ("LG", lg), ("Sonos", sonos), ("Shairport", shairport),
    ]
}
