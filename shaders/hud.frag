// hud.frag - the overlay: a translucent dark panel, or text rendered by
// SDL_ttf (its coverage in the texture's alpha) tinted with `tint`.
#version 330 core
in vec2 uv;
uniform sampler2D text;
uniform int panel;          // 1: a flat panel, no texture
uniform vec4 tint;
out vec4 color;

void main()
{
    if (panel == 1) {
        color = tint;
        return;
    }
    color = vec4(tint.rgb, tint.a * texture(text, uv).a);
}
