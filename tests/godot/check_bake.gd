# Loads every imported baked model listed in bake_cases.json and checks that its cloth mesh has
# the baked blend shapes and that its AnimationPlayer has the clip with a blend-shape track for
# each of them. Prints "DRAPE_GODOT_BAKE_OK <count>" when all pass; exits 1 otherwise.
# Run by tests/bake_test.cpp after `godot3-server -e --quit` imported the files.
extends SceneTree

func _collect(node, meshes, players):
	if node is MeshInstance:
		meshes.append(node)
	if node is AnimationPlayer:
		players.append(node)
	for child in node.get_children():
		_collect(child, meshes, players)

func _init():
	var f = File.new()
	if f.open("res://bake_cases.json", File.READ) != OK:
		print("DRAPE_GODOT_FAIL cannot read bake_cases.json")
		quit(1)
		return
	var cases = JSON.parse(f.get_as_text()).result
	f.close()
	var ok = 0
	var failed = false
	for c in cases:
		var res = load(c["file"])
		if res == null:
			print("DRAPE_GODOT_FAIL ", c["file"], ": not imported")
			failed = true
			continue
		var scene = res.instance()
		var meshes = []
		var players = []
		_collect(scene, meshes, players)
		var errors = []
		var shapes = 0
		for m in meshes:
			if m.mesh != null:
				shapes = max(shapes, m.mesh.get_blend_shape_count())
		if shapes != int(c["blend_shapes"]):
			errors.append("blend shapes %d, expected %d" % [shapes, int(c["blend_shapes"])])
		if players.size() != 1:
			errors.append("animation players %d, expected 1" % players.size())
		else:
			var anim = players[0].get_animation(c["animation"])
			if anim == null:
				errors.append("no animation %s: %s" % [c["animation"], players[0].get_animation_list()])
			else:
				var tracks = 0
				var transforms = 0
				for t in range(anim.get_track_count()):
					var p = str(anim.track_get_path(t))
					if p.find("blend_shapes/") >= 0:
						tracks += 1
					if anim.track_get_type(t) == Animation.TYPE_TRANSFORM:
						transforms += 1
				if tracks != int(c["blend_shapes"]):
					errors.append("blend-shape tracks %d, expected %d" % [tracks, int(c["blend_shapes"])])
				if transforms == 0:
					errors.append("the clip lost its bone tracks")
		if errors.size() > 0:
			print("DRAPE_GODOT_FAIL ", c["file"], ": ", errors)
			failed = true
		else:
			ok += 1
		scene.free()
	if failed:
		quit(1)
	else:
		print("DRAPE_GODOT_BAKE_OK ", ok)
		quit(0)
