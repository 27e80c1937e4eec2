import Foundation

/// How the ffmpeg command draws a `LabFrameCode`: a source of `totalModules` x `rows + 2` pixels
/// whose pixels `geq` computes from the frame number `N` (one pixel a module, a few hundred
/// expression evaluations a frame), scaled up without smoothing and laid over the picture.
extension LabFrameCode {
    /// Pixels a module is wide and high in a picture `width` wide: as big as `widthFraction` allows.
    public func moduleSize(width: Int) -> Int {
        max(2, Int(Double(width) * widthFraction) / totalModules)
    }

    /// A lavfi graph (for `-f lavfi -i`) of `pattern` at `width`x`height`, `rate`, with stream
    /// `stream`'s code laid over it, then `after` (a filter chain, e.g. the drawtext label).
    func lavfiGraph(pattern: String, width: Int, height: Int, rate: String, stream: Int, after: String) -> String {
        let module = moduleSize(width: width)
        let x = (width - totalModules * module) / 2
        let y = Int((Double(height) * top).rounded())
        return "\(pattern)=size=\(width)x\(height):rate=\(rate)[picture];"
            + "color=c=black:size=\(totalModules)x\(rows + 2):rate=\(rate),format=gray,geq=lum='\(expression(stream: stream))',"
            + "scale=iw*\(module):ih*\(module):flags=neighbor[code];"
            + "[picture][code]overlay=x=\(x):y=\(y),\(after)[out0]"
    }

    /// The `geq` luma of module (X, Y) for frame N: 255 white, 0 black. Variables: 0 the word,
    /// 1 a CRC term, 2 the module within the band, 3 the module within the word, 4 the frame
    /// index, 5 the bit under the module. The CRC is linear (initial value 0), so the check of
    /// frame N is the stream's check XOR the checks of N's set bits (XOR as a + b - 2 bitand(a, b)).
    func expression(stream: Int) -> String {
        let dataModules = 2 * wordBits
        var parts = ["st(4,mod(N,\(frameModulus)))",
                     "st(0,\(crc(value: stream << frameBits, bits: streamBits + frameBits)))"]
        for bit in 0..<frameBits {
            let term = crc(value: 1 << bit, bits: streamBits + frameBits)
            parts.append("st(1,\(term)*mod(floor(ld(4)/\(1 << bit)),2))")
            parts.append("st(0,ld(0)+ld(1)-2*bitand(ld(0),ld(1)))")
        }
        parts.append("st(0,\(stream << (frameBits + checkBits))+ld(4)*\(1 << checkBits)+ld(0))")
        parts.append("st(2,X-\(quietModules))")
        parts.append("st(3,ld(2)-\(startGuard.count))")
        parts.append("st(5,mod(floor(ld(0)/pow(2,\(wordBits - 1)-floor(ld(3)/2))),2))")
        let start = Int(startGuard, radix: 2) ?? 0
        let end = Int(endGuard, radix: 2) ?? 0
        let endOffset = startGuard.count + dataModules
        let value = "if(lt(Y,1)+gt(Y,\(rows))+lt(ld(2),0)+gte(ld(2),\(bandModules)),0,"
            + "if(lt(ld(3),0),mod(floor(\(start)/pow(2,\(startGuard.count - 1)-ld(2))),2),"
            + "if(lt(ld(3),\(dataModules)),if(mod(ld(3),2),1-ld(5),ld(5)),"
            + "mod(floor(\(end)/pow(2,\(endOffset + endGuard.count - 1)-ld(2))),2))))"
        parts.append("255*" + value)
        return parts.joined(separator: ";")
    }
}
