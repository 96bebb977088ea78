/// SHA-256 (FIPS 180-4), for the corpus digest: the core links no crypto
/// library. Fed in pieces, finished once.
struct SHA256 {
    private var state: State = (
        0x6A09_E667, 0xBB67_AE85, 0x3C6E_F372, 0xA54F_F53A, 0x510E_527F, 0x9B05_688C, 0x1F83_D9AB, 0x5BE0_CD19
    )
    /// Bytes not yet making a whole block of 64.
    private var pending: [UInt8] = []
    private var length: UInt64 = 0

    private static let roundConstants: [UInt32] = [
        0x428A_2F98, 0x7137_4491, 0xB5C0_FBCF, 0xE9B5_DBA5, 0x3956_C25B, 0x59F1_11F1, 0x923F_82A4, 0xAB1C_5ED5,
        0xD807_AA98, 0x1283_5B01, 0x2431_85BE, 0x550C_7DC3, 0x72BE_5D74, 0x80DE_B1FE, 0x9BDC_06A7, 0xC19B_F174,
        0xE49B_69C1, 0xEFBE_4786, 0x0FC1_9DC6, 0x240C_A1CC, 0x2DE9_2C6F, 0x4A74_84AA, 0x5CB0_A9DC, 0x76F9_88DA,
        0x983E_5152, 0xA831_C66D, 0xB003_27C8, 0xBF59_7FC7, 0xC6E0_0BF3, 0xD5A7_9147, 0x06CA_6351, 0x1429_2967,
        0x27B7_0A85, 0x2E1B_2138, 0x4D2C_6DFC, 0x5338_0D13, 0x650A_7354, 0x766A_0ABB, 0x81C2_C92E, 0x9272_2C85,
        0xA2BF_E8A1, 0xA81A_664B, 0xC24B_8B70, 0xC76C_51A3, 0xD192_E819, 0xD699_0624, 0xF40E_3585, 0x106A_A070,
        0x19A4_C116, 0x1E37_6C08, 0x2748_774C, 0x34B0_BCB5, 0x391C_0CB3, 0x4ED8_AA4A, 0x5B9C_CA4F, 0x682E_6FF3,
        0x748F_82EE, 0x78A5_636F, 0x84C8_7814, 0x8CC7_0208, 0x90BE_FFFA, 0xA450_6CEB, 0xBEF9_A3F7, 0xC671_78F2,
    ]

    mutating func update(_ bytes: [UInt8]) {
        length &+= UInt64(bytes.count)
        bytes.withUnsafeBufferPointer { input in
            var offset = 0
            // Fill a started block first; whole blocks straight from the input.
            if !pending.isEmpty {
                let taken = min(64 - pending.count, input.count)
                pending.append(contentsOf: input[..<taken])
                offset = taken
                guard pending.count == 64 else { return }
                pending.withUnsafeBufferPointer { compress($0) }
                pending.removeAll(keepingCapacity: true)
            }
            while input.count - offset >= 64 {
                compress(UnsafeBufferPointer(rebasing: input[offset..<(offset + 64)]))
                offset += 64
            }
            pending.append(contentsOf: input[offset...])
        }
    }

    mutating func update(_ bytes: ArraySlice<UInt8>) {
        update(Array(bytes))
    }

    /// The 32 bytes of the digest of everything fed.
    mutating func finish() -> [UInt8] {
        let bits = length &* 8
        var tail: [UInt8] = [0x80]
        tail.append(contentsOf: repeatElement(0, count: (119 - pending.count) % 64))
        for shift in stride(from: 56, through: 0, by: -8) {
            tail.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift)))
        }
        let saved = length
        update(tail)
        length = saved
        var digest: [UInt8] = []
        for word in [state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7] {
            for shift in stride(from: 24, through: 0, by: -8) {
                digest.append(UInt8(truncatingIfNeeded: word >> UInt32(shift)))
            }
        }
        return digest
    }

    private mutating func compress(_ block: UnsafeBufferPointer<UInt8>) {
        state = withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { schedule in
            Self.roundConstants.withUnsafeBufferPointer { constants in
                Self.compress(block, state: state, schedule: schedule, constants: constants)
            }
        }
    }

    private typealias State = (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)

    private static func compress(
        _ block: UnsafeBufferPointer<UInt8>, state: State, schedule: UnsafeMutableBufferPointer<UInt32>,
        constants: UnsafeBufferPointer<UInt32>
    ) -> State {
        for index in 0..<16 {
            schedule[index] =
                UInt32(block[index * 4]) << 24 | UInt32(block[index * 4 + 1]) << 16 | UInt32(block[index * 4 + 2]) << 8
                | UInt32(block[index * 4 + 3])
        }
        for index in 16..<64 {
            let early = schedule[index - 15]
            let late = schedule[index - 2]
            let sigma0 = early.rotatedRight(7) ^ early.rotatedRight(18) ^ (early >> 3)
            let sigma1 = late.rotatedRight(17) ^ late.rotatedRight(19) ^ (late >> 10)
            schedule[index] = schedule[index - 16] &+ sigma0 &+ schedule[index - 7] &+ sigma1
        }
        var (a, b, c, d, e, f, g, h) = state
        for index in 0..<64 {
            let sum1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
            let choice = (e & f) ^ (~e & g)
            let temporary1 = h &+ sum1 &+ choice &+ constants[index] &+ schedule[index]
            let sum0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
            let majority = (a & b) ^ (a & c) ^ (b & c)
            let temporary2 = sum0 &+ majority
            (h, g, f, e, d, c, b, a) = (g, f, e, d &+ temporary1, c, b, a, temporary1 &+ temporary2)
        }
        return (
            state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e, state.5 &+ f, state.6 &+ g,
            state.7 &+ h
        )
    }
}

extension UInt32 {
    fileprivate func rotatedRight(_ count: UInt32) -> UInt32 { self >> count | self << (32 - count) }
}
