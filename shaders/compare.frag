// compare.frag - the split compare view: the original frame left of the
// divider, the filtered frame right of it, and a one-pixel white divider.
#version 330 core
in vec2 uv;
uniform sampler2D filtered;
uniform sampler2D original;
uniform float divider;    // split position, 0..1 of the picture width
uniform float divider_px; // half the divider's width, in texture coordinates
out vec4 color;

void main()
{
    if (abs(uv.x - divider) < divider_px)
        color = vec4(1.0);
    else if (uv.x < divider)
        color = vec4(texture(original, uv).rgb, 1.0);
    else
        color = vec4(texture(filtered, uv).rgb, 1.0);
}
