# Imports every glTF listed in cases.json into a fresh Blender scene and checks meshes,
# vertices, bones (names), and the skinned meshes' bounding box in the bind pose against the
# FLVER's. Writes result.json: [{file, errors: [...]}].
# Run: blender -b --factory-startup --python check_import.py -- cases.json result.json
import json
import sys

import numpy
if not hasattr(numpy, "bool"):
    numpy.bool = bool  # Debian's Blender 3.4 glTF importer still uses numpy.bool

import bpy

argv = sys.argv[sys.argv.index("--") + 1:]
cases = json.load(open(argv[0]))
results = []
for case in cases:
    errors = []
    bpy.ops.wm.read_factory_settings(use_empty=True)
    try:
        bpy.ops.import_scene.gltf(filepath=case["file"])
    except Exception as e:  # noqa: BLE001
        errors.append("import failed: %s" % e)
        results.append({"file": case["file"], "errors": errors})
        continue
    meshes = [o for o in bpy.context.scene.objects if o.type == "MESH"]
    arms = [o for o in bpy.context.scene.objects if o.type == "ARMATURE"]
    if len(meshes) != case["meshes"]:
        errors.append("meshes: %d, expected %d" % (len(meshes), case["meshes"]))
    nverts = sum(len(o.data.vertices) for o in meshes)
    if nverts != case["vertices"]:
        errors.append("vertices: %d, expected %d" % (nverts, case["vertices"]))
    if len(arms) != 1:
        errors.append("armatures: %d, expected 1" % len(arms))
    else:
        names = [b.name for b in arms[0].data.bones]
        if sorted(names) != sorted(case["bones"]):
            missing = sorted(set(case["bones"]) - set(names))[:5]
            extra = sorted(set(names) - set(case["bones"]))[:5]
            errors.append("bones: %d, expected %d; missing %s; extra %s" % (len(names), len(case["bones"]), missing, extra))
        arms[0].data.pose_position = "REST"
    # Bounding box of the deformed meshes (armature at rest = the bind pose), in world space.
    bpy.context.view_layer.update()
    dg = bpy.context.evaluated_depsgraph_get()
    lo = [1e30] * 3
    hi = [-1e30] * 3
    for o in meshes:
        ev = o.evaluated_get(dg)
        me = ev.to_mesh()
        mw = o.matrix_world
        for v in me.vertices:
            p = mw @ v.co
            for c in range(3):
                lo[c] = min(lo[c], p[c])
                hi[c] = max(hi[c], p[c])
        ev.to_mesh_clear()
    size = max(case["bbox_max"][c] - case["bbox_min"][c] for c in range(3))
    tol = 1e-3 * max(size, 1e-6)
    for c in range(3):
        if abs(lo[c] - case["bbox_min"][c]) > tol or abs(hi[c] - case["bbox_max"][c]) > tol:
            errors.append("bbox: %s..%s, expected %s..%s (tolerance %g)" % (
                [round(x, 5) for x in lo], [round(x, 5) for x in hi], case["bbox_min"], case["bbox_max"], tol))
            break
    results.append({"file": case["file"], "errors": errors})

json.dump(results, open(argv[1], "w"), indent=1)
print("DRAPE_BLENDER_DONE", len(results))
