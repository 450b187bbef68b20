# Blender (3.4, headless) check of a baked cloth: imports each .glb named in the job file, plays
# its animation to the given times and writes every mesh's evaluated vertex positions (world
# space, Blender's Z-up axes) per time. Run by tests/bake_test.cpp:
#   blender -b --factory-startup --python check_bake.py -- job.json result.json
import json
import sys

import numpy

if not hasattr(numpy, "bool"):
    numpy.bool = bool  # Debian's Blender 3.4 glTF importer still uses numpy.bool

import bpy  # noqa: E402


def sample(path, animation, times):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.import_scene.gltf(filepath=path)
    scene = bpy.context.scene
    fps = scene.render.fps / scene.render.fps_base
    actions = [a.name for a in bpy.data.actions]
    if not any(animation in a for a in actions):
        raise RuntimeError("%s: no action named after %s: %s" % (path, animation, actions))
    # The importer assigns a file's only animation to the armature and to the shape keys it
    # drives; assign it where it did not (several animations).
    for o in scene.objects:
        holder, root = None, None
        if o.type == "ARMATURE":
            holder, root = o, "OBJECT"
        elif o.type == "MESH" and o.data.shape_keys:
            holder, root = o.data.shape_keys, "KEY"
        if holder is None or (holder.animation_data and holder.animation_data.action):
            continue
        mine = [a for a in bpy.data.actions if animation in a.name and a.id_root == root]
        if mine:
            holder.animation_data_create()
            holder.animation_data.action = mine[0]
    out = []
    for t in times:
        frame = t * fps
        whole = int(frame)
        scene.frame_set(whole, subframe=frame - whole)
        bpy.context.view_layer.update()
        dg = bpy.context.evaluated_depsgraph_get()
        meshes = {}
        for o in scene.objects:
            if o.type != "MESH":
                continue
            ev = o.evaluated_get(dg)
            me = ev.to_mesh()
            meshes[o.name] = [list(o.matrix_world @ v.co) for v in me.vertices]
            ev.to_mesh_clear()
        out.append({"time": t, "meshes": meshes})
    shape_keys = {o.name: len(o.data.shape_keys.key_blocks) for o in scene.objects if o.type == "MESH" and o.data.shape_keys}
    return {"frames": out, "actions": actions, "shape_keys": shape_keys}


def main():
    argv = sys.argv[sys.argv.index("--") + 1:]
    job = json.load(open(argv[0]))
    result = {"errors": [], "files": {}}
    for f in job["files"]:
        try:
            result["files"][f] = sample(f, job["animation"], job["times"])
        except Exception as e:  # report, never hang
            result["errors"].append("%s: %s: %s" % (f, type(e).__name__, e))
    json.dump(result, open(argv[1], "w"))


main()
