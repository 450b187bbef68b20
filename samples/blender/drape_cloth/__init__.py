# drape cloth: plays a character's game cloth (a .drcloth written by `drape convert`) live in
# Blender, through the drape runtime (libdrape_runtime.so, loaded with ctypes).
#
# With a character converted by drape imported (File > Import > glTF, the default bone
# orientation) and its armature active, Object > drape: Attach Cloth (or
# bpy.ops.drape.attach_cloth(filepath=".../cNNNN.drcloth")) attaches the cloth. On every frame
# change the add-on poses the cloth's transform set from the armature (bone by name, as drape bake
# matches them), steps the runtime at the games' 30 Hz, writes the display meshes into copies of
# the cloth meshes (named "<mesh>.drape"; the originals are hidden, never modified) and the bones
# the cloth drives into their pose bones. Playing forward steps once per 30 Hz of scene time; a
# jump restores the state cached at that frame, or starts again there (reset and 30 settling
# steps, as drape bake does).
import json
import math
import os
import struct

import bpy
import numpy
from mathutils import Matrix, Quaternion

from . import runtime

bl_info = {
    "name": "drape cloth",
    "author": "drape",
    "version": (0, 1, 0),
    "blender": (3, 4, 0),
    "location": "View3D > Sidebar > drape; Object > drape: Attach Cloth",
    "description": "Plays the game cloth of characters converted by drape (Dark Souls III, Sekiro, Elden Ring) live",
    "category": "Animation",
}

STEP_SECONDS = 1.0 / 30.0  # the games step their cloth at 30 Hz
WARMUP_STEPS = 30          # settling steps at the first pose (drape bake's)
CACHE_FRAMES = 600         # saved states kept for jumping back

# Spaces. The game is left-handed, Y up; glTF mirrors Z; Blender's importer turns glTF's Y up into
# Z up (A: (x, y, z) -> (x, -z, y)) and keeps each bone's local axes (the default bone
# orientation), so a bone's Blender world matrix is A @ W_gltf and W_game = S @ W_gltf @ S.
_A = Matrix(((1, 0, 0, 0), (0, 0, -1, 0), (0, 1, 0, 0), (0, 0, 0, 1)))
_A_INV = _A.inverted()
_S = Matrix(((1, 0, 0, 0), (0, 1, 0, 0), (0, 0, -1, 0), (0, 0, 0, 1)))
_A_NP = numpy.array(_A)


def _glb_rest(path):
    """Each node's rest transform from the .glb drape convert wrote beside the .drcloth, by name:
    (its local matrix, its parent's world matrix), glTF space, in double precision; {} when there
    is none."""
    if not os.path.exists(path):
        return {}
    with open(path, "rb") as f:
        head = f.read(20)
        if len(head) < 20 or head[:4] != b"glTF":
            return {}
        doc = json.loads(f.read(struct.unpack_from("<I", head, 12)[0]))
    nodes = doc.get("nodes", [])
    parent = {}
    for i, n in enumerate(nodes):
        for ch in n.get("children", []):
            parent[ch] = i
    local = []
    for n in nodes:
        if "matrix" in n:
            local.append(numpy.array(n["matrix"], dtype=numpy.float64).reshape(4, 4).T)
            continue
        x, y, z, w = n.get("rotation", (0, 0, 0, 1))
        m = numpy.identity(4)
        m[:3, :3] = numpy.array(((1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)),
                                 (2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)),
                                 (2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)))) * numpy.array(n.get("scale", (1, 1, 1)))
        m[:3, 3] = n.get("translation", (0, 0, 0))
        local.append(m)
    world = {}

    def world_of(i):
        if i not in world:
            world[i] = world_of(parent[i]) @ local[i] if i in parent else local[i]
        return world[i]

    return {n.get("name", ""): (local[i], world_of(parent[i]) if i in parent else numpy.identity(4)) for i, n in enumerate(nodes)}


def _snapped(r):
    """The importer's per-bone rotation is a signed axis permutation for the bone orientations
    "Blender" and "Temperance": snap the measured one (off by Blender's single-precision rest) to it."""
    s = numpy.round(r)
    return s if numpy.abs(r - s).max() < 1e-3 and abs(abs(numpy.linalg.det(s[:3, :3])) - 1) < 1e-9 else r


def game_from_blender(m):
    """A bone's world matrix in Blender -> the game's matrix, as 16 floats, four columns."""
    g = _S @ _A_INV @ m @ _S
    return [g[r][c] for c in range(4) for r in range(4)]


def blender_from_game(floats):
    g = Matrix([[floats[c * 4 + r] for c in range(4)] for r in range(4)])
    return _A @ _S @ g @ _S


class Attachment:
    """One armature's cloth: the runtime's instances and the meshes they drive."""

    def __init__(self, armature, path):
        self.armature = armature.name
        self.path = path
        self.cloth = runtime.ClothFile(path)
        self.warnings = []
        self.meshes = []   # (cloth data, buffer, vertex count, original object name, copy object name)
        self.driven = []   # (cloth data, transform, bone name)
        self.cache = {}
        self.last_frame = None
        self.transform_bones = []
        self.skins = []    # per entry of self.meshes: how the armature skins the original mesh
        bones = armature.pose.bones
        # Blender's importer may turn each bone to point at its child (Bone Dir other than
        # "Blender"): its rest matrix is then A @ W_rest @ R with a per-bone rotation R. R comes
        # from the glTF node's rest world (the .glb beside the .drcloth); without the .glb the
        # bones must have been imported with Bone Dir "Blender" (R the identity).
        #
        # Blender keeps a bone's rest as head, tail and roll in single precision and rebuilds its
        # rest matrix from them: for a bone a few millimetres long that matrix is 1e-4 off, and
        # every pose matrix Blender composes through it inherits the error (0.26 mm at the thigh
        # skirt of Elden Ring c5000). The transform set is therefore composed here, in double
        # precision, from each bone's pose basis (what the action sets) and its exact rest from the
        # .glb: a bone's armature-space pose is P(parent) @ R(parent)^-1 @ L_rest @ R @ basis.
        rest = _glb_rest(os.path.splitext(path)[0] + ".glb")
        if not rest:
            self.warnings.append("no .glb beside the .drcloth: the character must be imported with Bone Dir 'Blender'")
        self.rest = {}        # bone -> (rest local (glTF), rest world of its glTF parent, R, R inverse)
        self.correction = {}  # bone -> R as a Blender matrix
        for b in armature.data.bones:
            node = rest.get(b.name)
            if node is None:
                continue
            local, parent_world = node
            r = _snapped(numpy.linalg.inv(_A_NP @ parent_world @ local) @ numpy.array(b.matrix_local))
            self.rest[b.name] = (local, parent_world, r, numpy.linalg.inv(r))
            self.correction[b.name] = Matrix(r.tolist())
        taken = set()
        for c in range(len(self.cloth.instances)):
            names = self.cloth.transform_names(c)
            self.transform_bones.append(names)
            for t in self.cloth.driven_bones(c):
                if t < len(names) and names[t] in bones:
                    self.driven.append((c, t, names[t]))
            for b, name, mesh, count in self.cloth.display_buffers(c):
                obj = self._find_mesh(armature, name, mesh, count, taken)
                if obj is None:
                    self.warnings.append("display buffer %s (%s, %d vertices): no mesh of this name and vertex count" % (name, mesh, count))
                    continue
                taken.add(obj.name)
                self.skins.append(self._skin_of(armature, obj))
                copy = self._copy_of(obj)
                tris = []
                for p in copy.data.polygons:
                    if len(p.vertices) == 3:
                        tris.extend(p.vertices)
                if tris and max(tris) < 65536:
                    self.cloth.set_triangles(c, b, tris)
                self.meshes.append((c, b, count, obj.name, copy.name))

    @staticmethod
    def _find_mesh(armature, name, mesh, count, taken):
        for o in bpy.data.objects:
            if o.type != "MESH" or o.name in taken or o.name.endswith(".drape") or len(o.data.vertices) != count:
                continue
            if o.parent is not None and o.parent.name != armature.name:
                continue
            if mesh and (o.data.name == mesh or o.name == mesh or o.data.name.endswith("_" + mesh) or o.name.endswith("_" + mesh)):
                return o
            if not mesh and o.name == name:
                return o
        return None

    @staticmethod
    def _skin_of(armature, obj):
        """The original mesh's skin (bone names, per vertex four bones and weights, rest positions
        in the armature's space), to hand the runtime the display mesh as Blender skins it, as
        drape bake hands in the glTF skin's."""
        groups = [g.name for g in obj.vertex_groups]
        n = len(obj.data.vertices)
        index = numpy.zeros((n, 4), dtype=numpy.int32)
        weight = numpy.zeros((n, 4), dtype=numpy.float64)
        rest = numpy.ones((n, 4))
        to_arm = armature.matrix_world.inverted() @ obj.matrix_world
        for v in obj.data.vertices:
            ws = sorted(((g.weight, g.group) for g in v.groups), reverse=True)[:4]
            total = sum(w for w, _ in ws)
            for k, (w, g) in enumerate(ws):
                index[v.index, k] = g
                weight[v.index, k] = w / total if total > 0 else 0.0
            rest[v.index, :3] = tuple(to_arm @ v.co)
        return groups, index, weight, rest

    def _skinned(self, armature, skin):
        groups, index, weight, rest = skin
        mats = numpy.zeros((max(len(groups), 1), 4, 4))
        for g, name in enumerate(groups):
            pb = armature.pose.bones.get(name)
            if pb is not None:
                mats[g] = numpy.array(armature.matrix_world @ pb.matrix @ pb.bone.matrix_local.inverted())
        world = numpy.zeros((rest.shape[0], 4))
        for k in range(4):
            world += weight[:, k:k + 1] * numpy.einsum("nij,nj->ni", mats[index[:, k]], rest)
        game = numpy.empty((rest.shape[0], 3), dtype=numpy.float32)  # Blender (x, y, z) -> game (x, z, y)
        game[:, 0], game[:, 1], game[:, 2] = world[:, 0], world[:, 2], world[:, 1]
        return game.reshape(-1)

    def _hand_in(self, armature):
        for (c, b, count, _, _), skin in zip(self.meshes, self.skins):
            self.cloth.set_display(c, b, self._skinned(armature, skin))

    @staticmethod
    def _copy_of(obj):
        name = obj.name + ".drape"
        old = bpy.data.objects.get(name)
        if old is not None:
            bpy.data.objects.remove(old, do_unlink=True)
        copy = bpy.data.objects.new(name, obj.data.copy())
        copy.data.name = obj.data.name + ".drape"
        for coll in obj.users_collection:
            coll.objects.link(copy)
        copy.matrix_world = Matrix.Identity(4)
        for slot, src in zip(copy.material_slots, obj.material_slots):
            slot.material = src.material
        obj.hide_viewport = True
        obj.hide_render = True
        return copy

    def detach(self):
        for _, _, _, orig, copy in self.meshes:
            o = bpy.data.objects.get(orig)
            if o is not None:
                o.hide_viewport = False
                o.hide_render = False
            c = bpy.data.objects.get(copy)
            if c is not None:
                data = c.data
                bpy.data.objects.remove(c, do_unlink=True)
                bpy.data.meshes.remove(data)
        self.meshes = []
        self.cloth.close()

    # ---- per frame ------------------------------------------------------------------------------

    def _armature_space(self, pb, memo):
        """The bone's pose in the armature's space (numpy, double), as Blender's pb.matrix but
        composed through the exact rest (see __init__). A bone without a rest in the .glb, or with
        constraints, is taken as Blender evaluates it."""
        name = pb.name
        if name in memo:
            return memo[name]
        rest = self.rest.get(name)
        if rest is None or len(pb.constraints):
            m = numpy.array(pb.matrix)
        else:
            local, parent_world, r, _ = rest
            basis = numpy.array(pb.matrix_basis)
            parent = pb.parent
            if parent is None:
                m = _A_NP @ parent_world @ local @ r @ basis
            else:
                up = self.rest.get(parent.name)
                m = self._armature_space(parent, memo) @ (up[3] if up is not None else numpy.identity(4)) @ local @ r @ basis
        memo[name] = m
        return m

    def _pose(self, armature):
        bones = armature.pose.bones
        world = numpy.array(armature.matrix_world)
        memo = {}
        for c, names in enumerate(self.transform_bones):
            floats = []
            for n in names:
                pb = bones.get(n)
                if pb is not None:
                    rest = self.rest.get(n)
                    m = world @ self._armature_space(pb, memo)
                    if rest is not None:
                        m = m @ rest[3]
                    floats.extend(game_from_blender(Matrix(m.tolist())))
                else:
                    obj = bpy.data.objects.get(n)
                    floats.extend(game_from_blender(obj.matrix_world) if obj is not None else game_from_blender(Matrix.Identity(4)))
            self.cloth.set_transforms(c, floats)

    def _write(self, armature):
        for c, b, count, _, copy_name in self.meshes:
            copy = bpy.data.objects.get(copy_name)
            if copy is None:
                continue
            xyz = numpy.frombuffer(self.cloth.positions(c, b, count), dtype=numpy.float32).reshape(-1, 3)
            copy.data.vertices.foreach_set("co", xyz[:, [0, 2, 1]].ravel())  # game (x, y, z) -> Blender (x, z, y)
            copy.data.update()
        inv = armature.matrix_world.inverted()
        for c, t, bone in self.driven:
            pb = armature.pose.bones.get(bone)
            if pb is not None:
                r = self.correction.get(bone)
                m = blender_from_game(self.cloth.transform(c, t))
                pb.matrix = inv @ (m @ r if r is not None else m)

    def start(self, scene, armature):
        """Starts at the scene's current frame: reset, settle, one step (drape bake's frame 0)."""
        self._pose(armature)
        self._hand_in(armature)
        for c in range(len(self.cloth.instances)):
            self.cloth.reset(c)
            for _ in range(WARMUP_STEPS):
                self.cloth.step(c, STEP_SECONDS)
            self.cloth.step(c, STEP_SECONDS)
        self.cache = {}
        self._arrive(scene, armature)

    def _arrive(self, scene, armature):
        self.last_frame = scene.frame_current
        if len(self.cache) < CACHE_FRAMES:
            self.cache[scene.frame_current] = [self.cloth.save(c) for c in range(len(self.cloth.instances))]
        self._write(armature)

    def frame_changed(self, scene, armature):
        f = scene.frame_current
        if f == self.last_frame:
            return
        if self.last_frame is not None and f == self.last_frame + 1:
            self._pose(armature)
            self._hand_in(armature)
            fps = scene.render.fps / scene.render.fps_base
            for c in range(len(self.cloth.instances)):
                self.cloth.advance(c, 1.0 / fps, STEP_SECONDS)
            self._arrive(scene, armature)
        elif f in self.cache:
            for c, state in enumerate(self.cache[f]):
                self.cloth.restore(c, state)
            self.last_frame = f
            self._write(armature)
        else:
            self.start(scene, armature)


_attached = {}


@bpy.app.handlers.persistent  # kept when a file is loaded (the attachments themselves are not)
def _on_frame_change(scene, *_):
    for name, att in list(_attached.items()):
        arm = bpy.data.objects.get(name)
        if arm is None:
            att.detach()
            del _attached[name]
            continue
        try:
            att.frame_changed(scene, arm)
        except runtime.RuntimeError_ as e:
            print("drape cloth: %s" % e)


def _active_armature(context):
    o = context.active_object
    if o is not None and o.type == "MESH" and o.parent is not None and o.parent.type == "ARMATURE":
        o = o.parent
    return o if o is not None and o.type == "ARMATURE" else None


class DRAPE_OT_attach_cloth(bpy.types.Operator):
    """Attach a .drcloth written by drape convert to the active armature and play it live"""
    bl_idname = "drape.attach_cloth"
    bl_label = "drape: Attach Cloth"
    bl_options = {"REGISTER", "UNDO"}
    filepath: bpy.props.StringProperty(subtype="FILE_PATH")
    filter_glob: bpy.props.StringProperty(default="*.drcloth", options={"HIDDEN"})

    def invoke(self, context, event):
        context.window_manager.fileselect_add(self)
        return {"RUNNING_MODAL"}

    def execute(self, context):
        arm = _active_armature(context)
        if arm is None:
            self.report({"ERROR"}, "select the character's armature (or one of its meshes) first")
            return {"CANCELLED"}
        if arm.name in _attached:
            _attached.pop(arm.name).detach()
        try:
            att = Attachment(arm, bpy.path.abspath(self.filepath))
            att.start(context.scene, arm)
        except (runtime.RuntimeError_, OSError) as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        _attached[arm.name] = att
        for w in att.warnings:
            self.report({"WARNING"}, w)
        self.report({"INFO"}, "drape cloth: %d cloth data(s), %d meshes, %d driven bones" % (len(att.cloth.instances), len(att.meshes), len(att.driven)))
        return {"FINISHED"}


def _attachment(context):
    """The active armature and its attached cloth (None when it has none)."""
    arm = _active_armature(context)
    return arm, (_attached.get(arm.name) if arm is not None else None)


class DRAPE_OT_detach_cloth(bpy.types.Operator):
    """Stop playing the cloth of the active armature and show its meshes as imported"""
    bl_idname = "drape.detach_cloth"
    bl_label = "drape: Detach Cloth"

    def execute(self, context):
        arm, att = _attachment(context)
        if att is None:
            return {"CANCELLED"}
        _attached.pop(arm.name).detach()
        return {"FINISHED"}


class DRAPE_OT_reset_cloth(bpy.types.Operator):
    """Start the cloth again at the current frame (reset and settle)"""
    bl_idname = "drape.reset_cloth"
    bl_label = "drape: Reset Cloth"

    def execute(self, context):
        arm, att = _attachment(context)
        if att is None:
            return {"CANCELLED"}
        att.start(context.scene, arm)
        return {"FINISHED"}


class DRAPE_OT_select_state(bpy.types.Operator):
    """Switch a cloth data to another of its states"""
    bl_idname = "drape.select_state"
    bl_label = "drape: Select State"
    cloth: bpy.props.IntProperty()
    state: bpy.props.IntProperty()

    def execute(self, context):
        _, att = _attachment(context)
        if att is None:
            return {"CANCELLED"}
        try:
            att.cloth.select_state(self.cloth, self.state)
            att.cache = {}
        except runtime.RuntimeError_ as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        return {"FINISHED"}


def _wind_changed(self, context):
    d = self.drape_wind_direction
    length = math.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2])
    game = (d[0] / length, d[2] / length, d[1] / length) if length > 0 else (1.0, 0.0, 0.0)  # Blender -> game
    for att in _attached.values():
        for c in range(len(att.cloth.instances)):
            att.cloth.set_wind(c, game, self.drape_wind_speed)


class DRAPE_PT_cloth(bpy.types.Panel):
    bl_label = "drape cloth"
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "drape"

    def draw(self, context):
        layout = self.layout
        _, att = _attachment(context)
        layout.operator(DRAPE_OT_attach_cloth.bl_idname, text="Attach Cloth...")
        if att is None:
            layout.label(text="No cloth on the active armature")
            return
        layout.label(text=bpy.path.basename(att.path))
        row = layout.row()
        row.operator(DRAPE_OT_reset_cloth.bl_idname, text="Reset")
        row.operator(DRAPE_OT_detach_cloth.bl_idname, text="Detach")
        for c in range(len(att.cloth.instances)):
            box = layout.box()
            box.label(text=att.cloth.cloth_name(c))
            current = att.cloth.state(c)
            for s, name in enumerate(att.cloth.state_names(c)):
                if name.startswith("_"):
                    continue  # the skin and state-change helpers, not states to play
                op = box.operator(DRAPE_OT_select_state.bl_idname, text=name, depress=(s == current))
                op.cloth, op.state = c, s
        layout.prop(context.scene, "drape_wind_direction")
        layout.prop(context.scene, "drape_wind_speed")
        for w in att.warnings:
            layout.label(text=w, icon="ERROR")


def _menu(self, context):
    self.layout.operator(DRAPE_OT_attach_cloth.bl_idname)


_classes = (DRAPE_OT_attach_cloth, DRAPE_OT_detach_cloth, DRAPE_OT_reset_cloth, DRAPE_OT_select_state, DRAPE_PT_cloth)


def register():
    for cls in _classes:
        bpy.utils.register_class(cls)
    bpy.types.Scene.drape_wind_direction = bpy.props.FloatVectorProperty(name="Wind direction", default=(1.0, 0.0, 0.0), update=_wind_changed)
    bpy.types.Scene.drape_wind_speed = bpy.props.FloatProperty(name="Wind speed (m/s)", default=0.0, min=0.0, update=_wind_changed)
    bpy.types.VIEW3D_MT_object.append(_menu)
    if _on_frame_change not in bpy.app.handlers.frame_change_post:
        bpy.app.handlers.frame_change_post.append(_on_frame_change)


def unregister():
    if _on_frame_change in bpy.app.handlers.frame_change_post:
        bpy.app.handlers.frame_change_post.remove(_on_frame_change)
    for att in _attached.values():
        att.detach()
    _attached.clear()
    bpy.types.VIEW3D_MT_object.remove(_menu)
    del bpy.types.Scene.drape_wind_speed
    del bpy.types.Scene.drape_wind_direction
    for cls in reversed(_classes):
        bpy.utils.unregister_class(cls)
