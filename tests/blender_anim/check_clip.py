# Blender (3.4, headless) check of an exported clip: imports the .glb named in the job file,
# plays its animation and compares a bone's world position at given times with the positions
# that drape's decoder predicts. Run by tests/anim_blender_test.cpp:
#   blender -b --factory-startup --python check_clip.py -- job.json result.json
import json
import sys

import numpy

numpy.bool = bool  # Debian's Blender 3.4 glTF importer still uses numpy.bool

import bpy  # noqa: E402


def main():
    argv = sys.argv[sys.argv.index("--") + 1:]
    job = json.load(open(argv[0]))
    result = {"ok": False, "errors": [], "samples": []}
    try:
        bpy.ops.wm.read_factory_settings(use_empty=True)
        bpy.ops.import_scene.gltf(filepath=job["glb"])
        scene = bpy.context.scene
        fps = scene.render.fps / scene.render.fps_base
        arm = next((o for o in bpy.data.objects if o.type == "ARMATURE"), None)
        if arm is None:
            raise RuntimeError("no armature imported")
        bone = arm.pose.bones.get(job["bone"])
        if bone is None:
            raise RuntimeError("bone %s not in the armature" % job["bone"])
        actions = [a.name for a in bpy.data.actions]
        result["actions"] = actions
        if not any(job["animation"] in a for a in actions):
            raise RuntimeError("no action named after %s: %s" % (job["animation"], actions))
        for s in job["samples"]:
            frame = s["time"] * fps
            whole = int(frame)
            scene.frame_set(whole, subframe=frame - whole)
            bpy.context.view_layer.update()
            p = arm.matrix_world @ bone.head
            got = [p.x, p.y, p.z]
            err = max(abs(a - b) for a, b in zip(got, s["blender_position"]))
            result["samples"].append({"time": s["time"], "frame": frame, "got": got, "want": s["blender_position"], "error": err})
            if err > job["tolerance"]:
                result["errors"].append("t=%g: bone at %s, expected %s (error %g)" % (s["time"], got, s["blender_position"], err))
        result["ok"] = not result["errors"]
    except Exception as e:  # report, never hang
        result["errors"].append("%s: %s" % (type(e).__name__, e))
    json.dump(result, open(argv[1], "w"), indent=1)


main()
