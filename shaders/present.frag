// present.frag - the video picture: the filtered frame, an RGBA8 texture at
// source resolution, on a quad letterboxed by the caller. Kept to a single
// texture fetch: Mesa's llvmpipe runs shaders this simple on its fast path.
#version 330 core
in vec2 uv;
uniform sampler2D filtered;
out vec4 color;

void main()
{
    color = texture(filtered, uv);
}
