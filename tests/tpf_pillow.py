#!/usr/bin/python3
"""Independent texture decodes for tests/tpf_test.cpp, by Pillow (Debian 12: python3-pil 9.4).

usage: tpf_pillow.py FOLDER

For every FOLDER/*.dds and FOLDER/*.png, writes FILE.pil: one text line "MODE WIDTH HEIGHT\n"
followed by Pillow's raw pixel bytes (Image.tobytes()). When Pillow cannot open or decode the
file, writes FILE.err with the reason instead.

Pillow 9.4 reads block-compressed DX10 headers only for BC5, BC6H, BC7 and R8G8B8A8. For the
DXGI formats whose blocks are identical to a legacy FourCC (BC1 = DXT1, BC2 = DXT3, BC3 = DXT5,
BC4_UNORM = ATI1) and for B8G8R8A8 / R8 (legacy RGB masks / luminance), this script
rewrites only the DDS header into the legacy form before giving it to Pillow; the pixel data
is untouched, so the pixels still come from Pillow's own decoder.
"""
import io
import os
import struct
import sys

try:
    from PIL import Image
except ImportError:  # pyenv or venv interpreters may not see Debian's python3-pil
    sys.path.append("/usr/lib/python3/dist-packages")
    from PIL import Image

DDPF_ALPHAPIXELS = 0x1
DDPF_FOURCC = 0x4
DDPF_RGB = 0x40
DDPF_LUMINANCE = 0x20000

# dxgi format -> (pf flags, fourcc, bit count, r, g, b, a masks)
LEGACY = {
    70: (DDPF_FOURCC, b"DXT1", 0, 0, 0, 0, 0),
    71: (DDPF_FOURCC, b"DXT1", 0, 0, 0, 0, 0),
    72: (DDPF_FOURCC, b"DXT1", 0, 0, 0, 0, 0),
    73: (DDPF_FOURCC, b"DXT3", 0, 0, 0, 0, 0),
    74: (DDPF_FOURCC, b"DXT3", 0, 0, 0, 0, 0),
    75: (DDPF_FOURCC, b"DXT3", 0, 0, 0, 0, 0),
    76: (DDPF_FOURCC, b"DXT5", 0, 0, 0, 0, 0),
    77: (DDPF_FOURCC, b"DXT5", 0, 0, 0, 0, 0),
    78: (DDPF_FOURCC, b"DXT5", 0, 0, 0, 0, 0),
    79: (DDPF_FOURCC, b"ATI1", 0, 0, 0, 0, 0),
    80: (DDPF_FOURCC, b"ATI1", 0, 0, 0, 0, 0),
    87: (DDPF_RGB | DDPF_ALPHAPIXELS, b"\0\0\0\0", 32, 0xFF0000, 0xFF00, 0xFF, 0xFF000000),
    91: (DDPF_RGB | DDPF_ALPHAPIXELS, b"\0\0\0\0", 32, 0xFF0000, 0xFF00, 0xFF, 0xFF000000),
    61: (DDPF_LUMINANCE, b"\0\0\0\0", 8, 0xFF, 0, 0, 0),
}


def legacy_header(data):
    """The DDS with a DX10 header rewritten to a legacy header when Pillow 9.4 needs it."""
    if len(data) < 148 or data[84:88] != b"DX10":
        return data
    (dxgi,) = struct.unpack_from("<I", data, 128)
    if dxgi not in LEGACY:
        return data
    flags, fourcc, bits, r, g, b, a = LEGACY[dxgi]
    head = bytearray(data[:128])
    struct.pack_into("<II4sIIIII", head, 76, 32, flags, fourcc, bits, r, g, b, a)
    return bytes(head) + data[148:]


def decode(path):
    with open(path, "rb") as f:
        data = f.read()
    if path.endswith(".dds"):
        data = legacy_header(data)
    im = Image.open(io.BytesIO(data))
    im.load()
    return im


def main():
    folder = sys.argv[1]
    for name in sorted(os.listdir(folder)):
        if not (name.endswith(".dds") or name.endswith(".png")):
            continue
        path = os.path.join(folder, name)
        try:
            im = decode(path)
            raw = im.tobytes()
            with open(path + ".pil", "wb") as f:
                f.write(f"{im.mode} {im.size[0]} {im.size[1]}\n".encode())
                f.write(raw)
        except Exception as e:  # noqa: BLE001 - any failure is reported to the C++ side
            with open(path + ".err", "w") as f:
                f.write(f"{type(e).__name__}: {e}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
