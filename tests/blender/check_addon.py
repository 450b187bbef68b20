# Blender (3.4, headless) check of the drape cloth add-on: installs and enables the add-on zip the
# way a user does (Preferences > Add-ons > Install), imports a converted character (default bone
# orientation), makes a clip active, attaches the character's .drcloth at frame 0, plays the
# frames in order and writes every visible mesh's evaluated vertex positions (world space) per
# frame, the live cloth copies ("<mesh>.drape") under their original mesh's name. With "still",
# also renders the last frame with the workbench renderer. Run by tests/blender_addon_test.cpp:
#   blender -b --factory-startup --python check_addon.py -- job.json result.json
import json
import math
import sys

import numpy

if not hasattr(numpy, "bool"):
    numpy.bool = bool  # Debian's Blender 3.4 glTF importer still uses numpy.bool

import bpy  # noqa: E402
from mathutils import Vector  # noqa: E402


def render(path, scene):
    dg = bpy.context.evaluated_depsgraph_get()
    lo, hi = Vector((1e9, 1e9, 1e9)), Vector((-1e9, -1e9, -1e9))
    for o in scene.objects:
        if o.type != "MESH" or o.hide_render:
            continue
        me = o.evaluated_get(dg).to_mesh()
        for v in me.vertices:
            p = o.matrix_world @ v.co
            lo, hi = Vector(map(min, lo, p)), Vector(map(max, hi, p))
    centre, size = (lo + hi) / 2, max(hi - lo)
    cam = bpy.data.objects.new("cam", bpy.data.cameras.new("cam"))
    scene.collection.objects.link(cam)
    scene.camera = cam
    d = Vector((math.sin(math.radians(300)), -math.cos(math.radians(300)), 0.35)).normalized()
    cam.location = centre + d * size * 1.35
    cam.rotation_euler = (centre - cam.location).to_track_quat("-Z", "Y").to_euler()
    scene.render.engine = "BLENDER_WORKBENCH"
    scene.display.shading.light = "STUDIO"
    scene.display.shading.color_type = "TEXTURE"
    scene.render.resolution_x, scene.render.resolution_y = 640, 640
    scene.render.filepath = path
    bpy.ops.render.render(write_still=True)


def main():
    argv = sys.argv[sys.argv.index("--") + 1:]
    job = json.load(open(argv[0]))
    result = {"errors": [], "frames": [], "messages": []}
    try:
        bpy.ops.preferences.addon_install(filepath=job["addon"], overwrite=True)
        bpy.ops.preferences.addon_enable(module="drape_cloth")
        bpy.ops.wm.read_homefile(use_empty=True)  # a new file: the add-on stays enabled
        scene = bpy.context.scene
        scene.render.fps, scene.render.fps_base = 30, 1.0
        bpy.ops.import_scene.gltf(filepath=job["model"])
        arm = [o for o in scene.objects if o.type == "ARMATURE"][0]
        actions = [a for a in bpy.data.actions if a.name.startswith(job["animation"] + "_") and a.id_root == "OBJECT"]
        arm.animation_data_create()
        for track in arm.animation_data.nla_tracks:
            track.mute = True
        arm.animation_data.action = actions[0]
        scene.frame_set(0)
        bpy.context.view_layer.objects.active = arm
        result["attach"] = list(bpy.ops.drape.attach_cloth(filepath=job["cloth"]))
        result["copies"] = sorted(o.name for o in scene.objects if o.name.endswith(".drape"))
        for f in range(job["frames"]):
            scene.frame_set(f)
            bpy.context.view_layer.update()
            dg = bpy.context.evaluated_depsgraph_get()
            meshes = {}
            for o in scene.objects:
                if o.type != "MESH" or o.hide_viewport:
                    continue
                ev = o.evaluated_get(dg)
                me = ev.to_mesh()
                name = o.name[:-len(".drape")] if o.name.endswith(".drape") else o.name
                meshes[name] = [list(o.matrix_world @ v.co) for v in me.vertices]
                ev.to_mesh_clear()
            result["frames"].append({"frame": f, "meshes": meshes})
        if job.get("still"):
            render(job["still"], scene)
        bpy.ops.drape.detach_cloth()
        result["after_detach"] = sorted(o.name for o in scene.objects if o.name.endswith(".drape") or (o.type == "MESH" and o.hide_viewport))
    except Exception as e:  # report, never hang
        result["errors"].append("%s: %s" % (type(e).__name__, e))
    json.dump(result, open(argv[1], "w"))


main()
