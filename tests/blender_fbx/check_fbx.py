# Imports an FBX into a fresh Blender scene and reports what Blender sees: meshes, vertices,
# armature bone names, actions. Writes result.json {meshes, vertices, bones, actions, error}.
# Run: blender -b --factory-startup --python check_fbx.py -- FILE.fbx result.json
import json
import sys

import bpy

argv = sys.argv[sys.argv.index("--") + 1:]
result = {"meshes": 0, "vertices": 0, "bones": [], "actions": [], "error": ""}
bpy.ops.wm.read_factory_settings(use_empty=True)
try:
    bpy.ops.import_scene.fbx(filepath=argv[0])
    meshes = [o for o in bpy.context.scene.objects if o.type == "MESH"]
    arms = [o for o in bpy.context.scene.objects if o.type == "ARMATURE"]
    result["meshes"] = len(meshes)
    result["vertices"] = sum(len(o.data.vertices) for o in meshes)
    for a in arms:
        result["bones"] += [b.name for b in a.data.bones]
    result["actions"] = [a.name for a in bpy.data.actions]
except Exception as e:  # noqa: BLE001
    result["error"] = "import failed: %s" % e
json.dump(result, open(argv[1], "w"), indent=1)
