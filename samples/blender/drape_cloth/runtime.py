# The drape cloth runtime (libdrape_runtime.so, drape/runtime.h) through ctypes: the calls the
# add-on makes, with their C signatures, and small wrappers that raise on a failed call.
import ctypes
import os

DRAPE_RESULT_OK = 0
DRAPE_BUFFER_DISPLAY = 1
DRAPE_STREAM_POSITION = 0
DRAPE_ERROR_MESSAGE_SIZE = 256


class DrapeError(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("message", ctypes.c_char * DRAPE_ERROR_MESSAGE_SIZE)]


class DrapeAllocator(ctypes.Structure):
    _fields_ = [("alloc", ctypes.c_void_p), ("free", ctypes.c_void_p), ("user", ctypes.c_void_p)]


class DrapeInstanceDef(ctypes.Structure):
    _fields_ = [("cloth", ctypes.c_uint32), ("flags", ctypes.c_uint32), ("max_runtime_collidables", ctypes.c_uint32),
                ("max_wind_fields", ctypes.c_uint32), ("allocator", DrapeAllocator), ("cookie", ctypes.c_uint32)]


class RuntimeError_(Exception):
    pass


def _library_path():
    here = os.path.dirname(os.path.abspath(__file__))
    for name in (os.environ.get("DRAPE_RUNTIME_LIBRARY", ""), os.path.join(here, "libdrape_runtime.so")):
        if name and os.path.exists(name):
            return name
    raise RuntimeError_("libdrape_runtime.so is not beside the add-on (%s) and DRAPE_RUNTIME_LIBRARY is not set" % here)


def _bind(lib):
    u32, f32, p, cp = ctypes.c_uint32, ctypes.c_float, ctypes.c_void_p, ctypes.c_char_p
    fp = ctypes.POINTER(ctypes.c_float)
    sigs = {
        "drape_runtime_version": (cp, []),
        "drape_cloth_file_load": (ctypes.c_int, [p, ctypes.c_size_t, ctypes.POINTER(p), ctypes.POINTER(DrapeError)]),
        "drape_cloth_file_destroy": (None, [p]),
        "drape_cloth_data_count": (u32, [p]),
        "drape_cloth_data_name": (cp, [p, u32]),
        "drape_cloth_transform_count": (u32, [p, u32]),
        "drape_cloth_transform_name": (cp, [p, u32, u32]),
        "drape_cloth_buffer_count": (u32, [p, u32]),
        "drape_cloth_buffer_name": (cp, [p, u32, u32]),
        "drape_cloth_buffer_kind": (ctypes.c_int, [p, u32, u32]),
        "drape_cloth_buffer_vertex_count": (u32, [p, u32, u32]),
        "drape_cloth_buffer_triangle_count": (u32, [p, u32, u32]),
        "drape_cloth_buffer_stores_triangles": (ctypes.c_int, [p, u32, u32]),
        "drape_cloth_buffer_mesh_name": (cp, [p, u32, u32]),
        "drape_cloth_state_count": (u32, [p, u32]),
        "drape_cloth_state_name": (cp, [p, u32, u32]),
        "drape_cloth_driven_bone_count": (u32, [p, u32]),
        "drape_cloth_driven_bone": (u32, [p, u32, u32]),
        "drape_default_instance_def": (DrapeInstanceDef, []),
        "drape_instance_create": (ctypes.c_int, [p, ctypes.POINTER(DrapeInstanceDef), ctypes.POINTER(p), ctypes.POINTER(DrapeError)]),
        "drape_instance_destroy": (None, [p]),
        "drape_instance_error_message": (cp, [p]),
        "drape_instance_set_transforms": (ctypes.c_int, [p, u32, u32, fp]),
        "drape_instance_set_buffer_triangles": (ctypes.c_int, [p, u32, u32, ctypes.POINTER(ctypes.c_uint16)]),
        "drape_instance_set_display_vertices": (ctypes.c_int, [p, u32, u32, fp, fp, fp]),
        "drape_instance_select_state": (ctypes.c_int, [p, u32]),
        "drape_instance_state": (u32, [p]),
        "drape_instance_set_wind": (ctypes.c_int, [p, u32, fp, f32]),
        "drape_instance_step": (ctypes.c_int, [p, f32]),
        "drape_instance_advance": (ctypes.c_int, [p, f32, f32, f32, u32, ctypes.POINTER(u32)]),
        "drape_instance_reset": (ctypes.c_int, [p]),
        "drape_instance_state_size": (ctypes.c_size_t, [p]),
        "drape_instance_save_state": (ctypes.c_int, [p, p, ctypes.c_size_t]),
        "drape_instance_restore_state": (ctypes.c_int, [p, p, ctypes.c_size_t]),
        "drape_instance_read_buffer": (ctypes.c_int, [p, u32, ctypes.c_int, fp, ctypes.c_size_t]),
        "drape_instance_read_transforms": (ctypes.c_int, [p, u32, u32, fp]),
    }
    for name, (res, args) in sigs.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args
    return lib


_lib = None


def lib():
    global _lib
    if _lib is None:
        _lib = _bind(ctypes.CDLL(_library_path()))
    return _lib


def text(b):
    return b.decode("utf-8", "replace") if b else ""


class ClothFile:
    """A loaded .drcloth and one runtime instance per cloth data."""

    def __init__(self, path):
        self.lib = lib()
        with open(path, "rb") as f:
            data = f.read()
        self.handle = ctypes.c_void_p()
        err = DrapeError()
        if self.lib.drape_cloth_file_load(data, len(data), ctypes.byref(self.handle), ctypes.byref(err)) != DRAPE_RESULT_OK:
            raise RuntimeError_("%s: %s" % (path, text(err.message)))
        self.instances = []
        for c in range(self.lib.drape_cloth_data_count(self.handle)):
            d = self.lib.drape_default_instance_def()
            d.cloth = c
            inst = ctypes.c_void_p()
            if self.lib.drape_instance_create(self.handle, ctypes.byref(d), ctypes.byref(inst), ctypes.byref(err)) != DRAPE_RESULT_OK:
                self.close()
                raise RuntimeError_("cloth data %d: %s" % (c, text(err.message)))
            self.instances.append(inst)

    def close(self):
        for inst in getattr(self, "instances", []):
            self.lib.drape_instance_destroy(inst)
        self.instances = []
        if getattr(self, "handle", None):
            self.lib.drape_cloth_file_destroy(self.handle)
            self.handle = None

    def check(self, c, result, what):
        if result != DRAPE_RESULT_OK:
            raise RuntimeError_("%s (cloth data %s): %s" % (what, self.cloth_name(c), text(self.lib.drape_instance_error_message(self.instances[c]))))

    def cloth_name(self, c):
        return text(self.lib.drape_cloth_data_name(self.handle, c))

    def transform_names(self, c):
        return [text(self.lib.drape_cloth_transform_name(self.handle, c, t)) for t in range(self.lib.drape_cloth_transform_count(self.handle, c))]

    def state_names(self, c):
        return [text(self.lib.drape_cloth_state_name(self.handle, c, s)) for s in range(self.lib.drape_cloth_state_count(self.handle, c))]

    def display_buffers(self, c):
        """(buffer index, name, mesh name, vertex count) of each display buffer of cloth data c."""
        out = []
        for b in range(self.lib.drape_cloth_buffer_count(self.handle, c)):
            if self.lib.drape_cloth_buffer_kind(self.handle, c, b) != DRAPE_BUFFER_DISPLAY:
                continue
            out.append((b, text(self.lib.drape_cloth_buffer_name(self.handle, c, b)), text(self.lib.drape_cloth_buffer_mesh_name(self.handle, c, b)),
                        self.lib.drape_cloth_buffer_vertex_count(self.handle, c, b)))
        return out

    def driven_bones(self, c):
        return [self.lib.drape_cloth_driven_bone(self.handle, c, i) for i in range(self.lib.drape_cloth_driven_bone_count(self.handle, c))]

    def set_transforms(self, c, floats):
        n = len(floats) // 16
        arr = (ctypes.c_float * len(floats))(*floats)
        self.check(c, self.lib.drape_instance_set_transforms(self.instances[c], 0, n, arr), "set transforms")

    def set_triangles(self, c, buffer, indices):
        n = min(len(indices) // 3, self.lib.drape_cloth_buffer_triangle_count(self.handle, c, buffer))
        if n == 0 or self.lib.drape_cloth_buffer_stores_triangles(self.handle, c, buffer):
            return
        arr = (ctypes.c_uint16 * (n * 3))(*indices[:n * 3])
        self.check(c, self.lib.drape_instance_set_buffer_triangles(self.instances[c], buffer, n, arr), "set triangles")

    def set_display(self, c, buffer, xyz):
        """The display mesh as the host skinned it this frame (a float32 array of xyz, game space)."""
        arr = (ctypes.c_float * len(xyz)).from_buffer_copy(xyz)
        self.check(c, self.lib.drape_instance_set_display_vertices(self.instances[c], buffer, len(xyz) // 3, arr, None, None), "set display vertices")

    def reset(self, c):
        self.check(c, self.lib.drape_instance_reset(self.instances[c]), "reset")

    def step(self, c, dt):
        self.check(c, self.lib.drape_instance_step(self.instances[c], dt), "step")

    def advance(self, c, seconds, step_seconds):
        steps = ctypes.c_uint32()
        self.check(c, self.lib.drape_instance_advance(self.instances[c], seconds, 1.0, step_seconds, 8, ctypes.byref(steps)), "advance")
        return steps.value

    def select_state(self, c, state):
        self.check(c, self.lib.drape_instance_select_state(self.instances[c], state), "select state")

    def state(self, c):
        return self.lib.drape_instance_state(self.instances[c])

    def set_wind(self, c, direction, speed):
        arr = (ctypes.c_float * 3)(*direction)
        self.check(c, self.lib.drape_instance_set_wind(self.instances[c], 0, arr, speed), "set wind")

    def save(self, c):
        n = self.lib.drape_instance_state_size(self.instances[c])
        buf = ctypes.create_string_buffer(n)
        self.check(c, self.lib.drape_instance_save_state(self.instances[c], buf, n), "save state")
        return buf

    def restore(self, c, buf):
        self.check(c, self.lib.drape_instance_restore_state(self.instances[c], buf, len(buf)), "restore state")

    def positions(self, c, buffer, count):
        arr = (ctypes.c_float * (count * 3))()
        self.check(c, self.lib.drape_instance_read_buffer(self.instances[c], buffer, DRAPE_STREAM_POSITION, arr, count * 3), "read buffer")
        return arr

    def transform(self, c, t):
        arr = (ctypes.c_float * 16)()
        self.check(c, self.lib.drape_instance_read_transforms(self.instances[c], t, 1, arr), "read transforms")
        return list(arr)
