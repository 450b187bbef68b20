# Blender (3.4, headless) check of a baked cloth: imports each .glb named in the job file, plays
# its animation to the given times and writes every mesh's evaluated vertex positions (world
# space, Blender's Z-up axes) per time. With "animation": null the files are only imported (a
# file with no drawable mesh must import too) and their objects listed. "meshes" limits the
# meshes written; "bones" names armature bones whose heads (world space) are written per time. Run by tests/bake_test.cpp:
#   blender -b --factory-startup --python check_bake.py -- job.json result.json
import json
import sys

import numpy

if not hasattr(numpy, "bool"):
    numpy.bool = bool  # Debian's Blender 3.4 glTF importer still uses numpy.bool

import bpy  # noqa: E402


def sample(path, animation, times, only, bones):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.import_scene.gltf(filepath=path)
    scene = bpy.context.scene
    objects = {o.name: o.type for o in scene.objects}
    if animation is None:
        return {"objects": objects, "actions": [a.name for a in bpy.data.actions]}
    fps = scene.render.fps / scene.render.fps_base
    actions = [a.name for a in bpy.data.actions]
    if not any(animation in a for a in actions):
        raise RuntimeError("%s: no action named after %s: %s" % (path, animation, actions))
    # The importer makes one action per animation and animated object, named
    # "<animation>_<object>" (shape keys: "<animation>_<mesh>Key..."), and makes only the first
    # animation active. Make the asked one active on the armature and on every shape-key set it
    # keys, and mute the NLA tracks the importer stashed the others in.
    for o in scene.objects:
        holder, root = None, None
        if o.type == "ARMATURE":
            holder, root = o, "OBJECT"
        elif o.type == "MESH" and o.data.shape_keys:
            holder, root = o.data.shape_keys, "KEY"
        if holder is None:
            continue
        mine = [a for a in bpy.data.actions if a.name.startswith(animation + "_") and a.id_root == root]
        # the action of this object (shape keys: of this mesh), by its name
        exact = [a for a in mine if a.name in (animation + "_" + o.name, animation + "_" + o.data.name)]
        mine = exact or [a for a in mine if o.name in a.name] or (mine if root == "OBJECT" else [])
        holder.animation_data_create()
        for track in holder.animation_data.nla_tracks:
            track.mute = True
        if mine:
            holder.animation_data.action = mine[0]
        elif root == "KEY":
            holder.animation_data.action = None
    out = []
    for t in times:
        frame = t * fps
        whole = int(frame)
        scene.frame_set(whole, subframe=frame - whole)
        bpy.context.view_layer.update()
        dg = bpy.context.evaluated_depsgraph_get()
        meshes = {}
        for o in scene.objects:
            if o.type != "MESH" or (only is not None and o.name not in only):
                continue
            ev = o.evaluated_get(dg)
            me = ev.to_mesh()
            meshes[o.name] = [list(o.matrix_world @ v.co) for v in me.vertices]
            ev.to_mesh_clear()
        heads = {}
        for o in scene.objects:
            if o.type == "ARMATURE" and bones:
                for name in bones:
                    pb = o.pose.bones.get(name)
                    if pb is not None:
                        heads[name] = list(o.matrix_world @ pb.head)
        out.append({"time": t, "meshes": meshes, "bones": heads})
    shape_keys = {o.name: len(o.data.shape_keys.key_blocks) for o in scene.objects if o.type == "MESH" and o.data.shape_keys}
    return {"frames": out, "actions": actions, "shape_keys": shape_keys}


def main():
    argv = sys.argv[sys.argv.index("--") + 1:]
    job = json.load(open(argv[0]))
    result = {"errors": [], "files": {}}
    for f in job["files"]:
        try:
            result["files"][f] = sample(f, job.get("animation"), job.get("times", []), job.get("meshes"), job.get("bones", []))
        except Exception as e:  # report, never hang
            result["errors"].append("%s: %s: %s" % (f, type(e).__name__, e))
    json.dump(result, open(argv[1], "w"))


main()
