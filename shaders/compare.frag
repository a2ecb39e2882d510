// compare.frag - the split compare view: the original frame left of the
// divider, the filtered frame right of it, and a one-pixel white divider.
#version 330 core
in vec2 uv;
uniform sampler2D filtered;
uniform sampler2D original;
uniform float divider;    // split position, 0..1 of the picture width
uniform float divider_px; // half the divider's width, in texture coordinates
uniform vec2 orig_scale;  // the original fitted into the box: 1 on the side it fills
out vec4 color;

void main()
{
    if (abs(uv.x - divider) < divider_px)
        color = vec4(1.0);
    else if (uv.x < divider) {
        // A chain that changes the size shows the original at its own
        // aspect inside the same box, black around it.
        vec2 o = (uv - 0.5) * orig_scale + 0.5;
        bool inside = all(greaterThanEqual(o, vec2(0.0))) && all(lessThanEqual(o, vec2(1.0)));
        color = inside ? vec4(texture(original, o).rgb, 1.0) : vec4(0.0, 0.0, 0.0, 1.0);
    }
    else
        color = vec4(texture(filtered, uv).rgb, 1.0);
}
