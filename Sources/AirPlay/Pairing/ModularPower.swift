import BigInt
import CLibCrypto
import Foundation

extension BigUInt {
    /// `self` ^ `exponent` mod `modulus` by OpenSSL's constant-time Montgomery ladder
    /// (`BN_mod_exp_mont_consttime`): the exponent is a secret in SRP, and BigInt's `power` is
    /// neither constant-time nor fast unoptimised. `modulus` must be odd (SRP's primes are).
    func modularPower(_ exponent: BigUInt, modulus: BigUInt) -> BigUInt {
        precondition(modulus.isOdd, "modularPower needs an odd modulus")
        guard let context = BN_CTX_new() else { fatalError("OpenSSL could not allocate a BN_CTX") }
        defer { BN_CTX_free(context) }
        let base = Self.number(self % modulus), power = Self.number(exponent), mod = Self.number(modulus)
        defer { BN_clear_free(power); BN_free(base); BN_free(mod) }
        guard let result = BN_new() else { fatalError("OpenSSL could not allocate a BIGNUM") }
        defer { BN_clear_free(result) }
        BN_set_flags(power, Int32(BN_FLG_CONSTTIME))
        guard BN_mod_exp_mont_consttime(result, base, power, mod, context, nil) == 1 else {
            fatalError("BN_mod_exp_mont_consttime failed on an odd modulus")
        }
        var bytes = [UInt8](repeating: 0, count: Int((BN_num_bits(result) + 7) / 8))
        _ = bytes.withUnsafeMutableBufferPointer { BN_bn2bin(result, $0.baseAddress) }
        return BigUInt(Data(bytes))
    }

    private static func number(_ value: BigUInt) -> OpaquePointer {
        let bytes = [UInt8](value.serialize())
        guard let number = bytes.withUnsafeBufferPointer({ BN_bin2bn($0.baseAddress, Int32($0.count), nil) }) else {
            fatalError("OpenSSL could not allocate a BIGNUM")
        }
        return number
    }

    private var isOdd: Bool { !isZero && words[0] & 1 == 1 }
}
