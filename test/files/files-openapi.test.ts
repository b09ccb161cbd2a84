import { expect, it } from 'vitest';
import { BASE, describeEachDatabase, M } from '../support/harness.ts';

describeEachDatabase('attached files in the OpenAPI document', (h) => {
  it('declares the multipart upload, the binary answers and each path of the collections that declare files', async () => {
    const doc = (await h().get(`${BASE}/openapi.json`)).body;
    const files = `${M}/work_orders/{id}/attached_files`;
    expect(
      Object.keys(doc.paths)
        .filter((p) => p.includes('attached_files'))
        .sort(),
    ).toEqual(
      ['work_orders', 'service_requests']
        .flatMap((c) => [
          `${M}/${c}/{id}/attached_files`,
          `${M}/${c}/{id}/attached_files/{fid}`,
          `${M}/${c}/{id}/attached_files/{fid}/content`,
        ])
        .sort(),
    );
    expect(doc.paths[`${M}/attached_files`]).toBeUndefined();
    expect(doc.paths[files].post.requestBody.content['multipart/form-data'].schema.required).toEqual(['data']);
    expect(doc.paths[`${files}/{fid}/content`].get.responses['200'].content['*/*'].schema).toEqual({ type: 'string', format: 'binary' });
    expect(doc.paths[`${files}/{fid}/content`].get.responses['206']).toBeDefined();
    expect(Object.keys(doc.paths[`${files}/{fid}`])).toEqual(['parameters', 'get', 'patch', 'delete']);
    expect(doc.components.schemas['attached_files.record'].properties).toMatchObject({
      filename: expect.any(Object),
      mime_type: expect.any(Object),
      size: expect.any(Object),
      sha256: expect.any(Object),
    });
  });
});
