# Renders one frame of a glTF with Blender's workbench renderer (headless), for the README's
# picture of the baked sample.
# Run: blender -b --factory-startup --python render_still.py -- MODEL.glb FRAME OUT.png
import math
import sys

import numpy
if not hasattr(numpy, "bool"):
    numpy.bool = bool  # Debian's Blender 3.4 glTF importer still uses numpy.bool

import bpy
from mathutils import Vector

argv = sys.argv[sys.argv.index("--") + 1:]
path, frame, out = argv[0], int(argv[1]), argv[2]
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.gltf(filepath=path)
scene = bpy.context.scene
for o in scene.objects:
    if o.type == "ARMATURE" and o.animation_data is None and bpy.data.actions:
        o.animation_data_create()
        o.animation_data.action = bpy.data.actions[0]
scene.frame_set(frame)
bpy.context.view_layer.update()

# Frame the meshes: a three-quarter view from behind (the cape side, glTF -Z) and above.
dg = bpy.context.evaluated_depsgraph_get()
lo, hi = Vector((1e9, 1e9, 1e9)), Vector((-1e9, -1e9, -1e9))
for o in scene.objects:
    if o.type != "MESH":
        continue
    me = o.evaluated_get(dg).to_mesh()
    for v in me.vertices:
        p = o.matrix_world @ v.co
        lo = Vector(map(min, lo, p))
        hi = Vector(map(max, hi, p))
centre = (lo + hi) / 2
size = max(hi - lo)
cam_data = bpy.data.cameras.new("cam")
cam = bpy.data.objects.new("cam", cam_data)
scene.collection.objects.link(cam)
# Blender is Z-up after the glTF import: glTF -Z (the back) is Blender +Y.
direction = Vector((math.sin(math.radians(35)), math.cos(math.radians(35)), 0.35)).normalized()
cam.location = centre + direction * size * 2.2
cam.rotation_euler = (centre - cam.location).to_track_quat("-Z", "Y").to_euler()
cam_data.lens = 50
scene.camera = cam
scene.render.engine = "BLENDER_WORKBENCH"
scene.display.shading.light = "STUDIO"
scene.display.shading.color_type = "TEXTURE"
scene.display.shading.show_shadows = True
scene.display.shading.show_cavity = True
scene.render.resolution_x = 640
scene.render.resolution_y = 640
scene.render.film_transparent = False
world = bpy.data.worlds.new("w")
scene.world = world
scene.render.image_settings.file_format = "PNG"
scene.render.filepath = out
bpy.ops.render.render(write_still=True)
print("rendered", out)
